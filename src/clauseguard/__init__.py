"""clauseguard: coverage answers over versioned policy documents, with the clause behind each one."""

__version__ = "0.1.0"
