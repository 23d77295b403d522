"""The calendar privacy audit with an LLM judge (CalBench App. I): `audit` asks the judge,
`tables` turns its answers into the App. I tables, `run` drives both for ``accord judge``."""
