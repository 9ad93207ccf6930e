"""Deadlines: days late, per-student extensions and a late policy.

A submission's time comes from the LMS where its layout says (Gradescope's
``:created_at:``), else from the file's modification time (keep them when unzipping a
Canvas or Moodle download: ``unzip`` does). Canvas also marks a late file ``_late``
(shown as ``LMS: late``). With ``--deadline`` a submission is late by the days started
after the deadline (plus the student's extension, from an extensions CSV with the columns
``id`` and ``days``); the policy takes ``--late-penalty`` percent of the total per day
late, at most ``--late-cap`` percent.
"""
import csv
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path


def parse_time(text):
    """An ISO 8601 time (``2026-11-20T23:59``, optionally with ``+01:00`` or ``Z``); a
    time without a zone is local time."""
    try:
        value = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"deadline {text!r}: not an ISO 8601 time such as 2026-11-20T23:59") from None
    return value if value.tzinfo else value.astimezone()


def read_extensions(path):
    """``{student id: extra days}`` of an extensions CSV (columns ``id``, ``days``)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"extensions {path}: no such file")
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if not {"id", "days"} <= set(reader.fieldnames or []):
            raise ValueError(f"extensions {path}: needs the columns id and days (has {reader.fieldnames})")
        out = {}
        for line, row in enumerate(reader, start=2):
            try:
                days = float(row["days"])
            except (TypeError, ValueError):
                raise ValueError(f"extensions {path}, line {line}: days {row['days']!r} is not a number") from None
            if days < 0 or not math.isfinite(days):
                raise ValueError(f"extensions {path}, line {line}: days must be 0 or more")
            out[row["id"].strip()] = days
    return out


@dataclass
class Policy:
    """The late policy of a run: ``deadline`` (a datetime or None), ``per_day`` and ``cap``
    (percent of the total), ``extensions`` (``{id: days}``)."""

    deadline: datetime = None
    per_day: float = 0.0
    cap: float = 100.0
    extensions: dict = None

    def __post_init__(self):
        if not 0 <= self.per_day <= 100 or not 0 <= self.cap <= 100:
            raise ValueError(f"late penalty {self.per_day} and cap {self.cap}: percentages from 0 to 100")
        self.extensions = self.extensions or {}

    def days_late(self, student_id, submitted):
        """Whole days started after the student's deadline (0 on time, None without a
        deadline or a submission time)."""
        if self.deadline is None or submitted is None:
            return None
        due = self.deadline + timedelta(days=self.extensions.get(student_id, 0))
        return max(0, math.ceil((submitted - due) / timedelta(days=1)))

    def penalty(self, days):
        """Percent taken off for ``days`` late."""
        value = min(self.per_day * (days or 0), self.cap)
        return int(value) if float(value).is_integer() else value

    def final(self, total, days):
        """``total`` after the penalty (None stays None)."""
        if total is None:
            return None
        value = round(total * (1 - self.penalty(days) / 100), 4)
        return int(value) if float(value).is_integer() else value
