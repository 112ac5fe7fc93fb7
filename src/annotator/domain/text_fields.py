"""Pydantic field types with the store's text limits (see :mod:`annotator.domain.text`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, StringConstraints

from annotator.domain.text import one_line, printable

# Column widths of the store (store/schema.py): ids and names 200, label keys 300.
Name = Annotated[str, StringConstraints(max_length=200), AfterValidator(one_line)]
LabelKey = Annotated[str, StringConstraints(max_length=300), AfterValidator(printable)]
Word = Annotated[str, StringConstraints(max_length=50), AfterValidator(printable)]
