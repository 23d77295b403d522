"""Accord: measure how well LLM agents coordinate when each one holds private information.

The public entry points are the `accord` command and these modules:

- `accord.core`: the Game contract, requests and actions, the registry (`make`, `game_ids`);
- `accord.models`: `get_model("provider/model")` and the `ModelClient` contract;
- `accord.agents`: `LLMAgent` and the reference-agent registry;
- `accord.runner`: experiment files, `play_game`, `run_specs`;
- `accord.traces`: the trace schema, reader and writer;
- `accord.testing`: the conformance suite every game passes.
"""

__version__ = "0.1.0"
