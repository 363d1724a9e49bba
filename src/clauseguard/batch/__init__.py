"""Many requests at once: `clauseguard batch` and `clauseguard impact`, on local processes or Ray.

    requests_file (JSONL in, line numbers, request hashes) -> runner (workers answer; the driver
    audits each chunk durably, then records its results) -> results (journal, resumable, written
    in input order) ; impact (audited determinations re-answered under a new version)

Workers never write the audit log: the driver does, once per answer, before the answer is recorded.
"""
