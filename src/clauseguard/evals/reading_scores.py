"""The readers' judges for the blind suites' non-case files, registered with the holdout runner.

A phrasebook (policy sentences with expected trees, note sentences with expected facts) and a roles
file (blind role labels, the compile rate's denominator) are judged here, each reporting only counts
(exact / refused / wrong, per category), so a holdout half can be scored without showing its text.
"""

from __future__ import annotations
