"""`sorting-v1`: distributed sorting over a communication backend (MAS-Bench)."""
