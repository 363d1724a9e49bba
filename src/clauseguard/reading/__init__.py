"""Reading: criteria trees from policy-as-code or clause prose, facts from a request, and their evaluation.

Pure, deterministic code over the lexicon data files; it never decides a gate and never touches the
corpus store, the network or a model.
"""
