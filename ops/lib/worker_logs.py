"""What the worker processes' logs say about a run, for ./ops/chaos and ./ops/cluster: the
handlers the workers abandoned because they did not stop when told (each one a job handed back
and a process replaced — not a lost job, but a hang worth finding: the line says where it was).
Python standard library only."""
from pathlib import Path

ABANDONED = "did not stop when told"


class LogMark:
    """Where each log file ended when the run began: the run's lines are the ones after it."""

    def __init__(self, paths):
        self.sizes = {Path(p): (Path(p).stat().st_size if Path(p).exists() else 0) for p in paths}

    def lines_since(self):
        for path, size in self.sizes.items():
            if not path.exists():
                continue
            with open(path, "rb") as log:
                log.seek(size)
                for raw in log:
                    yield path.stem, raw.decode("utf-8", "replace").rstrip("\n")

    def abandoned_handlers(self):
        """(log name, line) of every abandonment logged since the mark."""
        return [(name, line) for name, line in self.lines_since() if ABANDONED in line]
