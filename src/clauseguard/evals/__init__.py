"""The evaluation harness: case suites, label validation, runs through any engine, the two-layer scorecard,
baselines, and suites expanded by construction.

It judges an engine from the outside, through the `EngineLike` protocol and the corpus; it never
imports the engine, retrieval or reading code, and never takes a label from them.
"""
