"""The whole source case as readable text, offline: history, diagnosis, options, findings.

Everything the draft holds as text is shown: known fields in a fixed, clinical order, then
any other text field under its own name (drafts carry extra keys such as the original
history or a discussion). Exam names link to the exam; the source link opens the browser.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTextBrowser, QWidget

from annotator.gui import theme

# Keys shown elsewhere (editors, strip) or as part of the fixed sections below.
_SHOWN = {
    "case_id", "case_title", "section", "area_of_interest", "clinical_history",
    "final_diagnosis", "difficulty", "rarity", "source_url", "license", "author", "item",
    "rubric_0_to_3", "diagnostic_steps", "imaging_examinations", "images", "image_detail",
}


def _text(value: Any) -> str:
    return html.escape(str(value)).replace("\n", "<br>")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _other_text(value: Any) -> str:
    """Any JSON value as readable HTML (strings, lists of strings, small objects)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return "<ul>" + "".join(f"<li>{_other_text(v)}</li>" for v in value) + "</ul>"
    if isinstance(value, dict):
        rows = "".join(f"<li><i>{_text(k)}</i>: {_other_text(v)}</li>" for k, v in value.items())
        return f"<ul>{rows}</ul>"
    return _text(value)


def case_html(content: dict[str, Any], final_diagnosis: str) -> str:
    """The case as HTML; ``final_diagnosis`` is the annotator's current value."""
    parts = [_header_html(content)]
    parts.append(f"<h4>Clinical history</h4><p>{_text(content.get('clinical_history') or '—')}</p>")
    draft_final = str(content.get("final_diagnosis") or "")
    parts.append(f"<h4>Final diagnosis</h4><p><b>{_text(final_diagnosis or '—')}</b> "
                 "<a href='edit:diagnosis' style='font-size:small'>edit</a>")
    if final_diagnosis != draft_final and draft_final:
        parts.append(f"<br><span style='color:{theme.colour('warning')}'>your fix; draft: "
                     f"{_text(draft_final)}</span>")
    parts.append("</p>")
    parts.append(_question_html(_dict(content.get("item"))))
    parts.append(_exams_html(content))
    for key in sorted(k for k in content if k not in _SHOWN):
        value = content[key]
        if value in (None, "", [], {}):
            continue
        heading = key.replace("_", " ").capitalize()
        parts.append(f"<h4>{_text(heading)}</h4>{_other_text(value)}")
    credit = [f"{k}: {_text(content[k])}" for k in ("author", "license") if content.get(k)]
    if credit:
        parts.append(f"<p style='color:{theme.colour('text_dim')}'>{' · '.join(credit)}</p>")
    return "".join(parts)


def _header_html(content: dict[str, Any]) -> str:
    """Title, where the case comes from, and a link to the source case."""
    title = content.get("case_title") or content.get("case_id", "")
    parts = [f"<h3 style='margin:0'>{_text(title)}</h3>"]
    where = " · ".join(_text(content[k]) for k in ("case_id", "section", "area_of_interest")
                       if content.get(k))
    parts.append(f"<p style='color:{theme.colour('text_dim')};margin:2px 0'>{where}</p>")
    url = content.get("source_url")
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        parts.append(f"<p><a href='{html.escape(url, quote=True)}'>Open the source case</a>"
                     f" <span style='color:{theme.colour('text_dim')}'>({_text(url)})</span></p>")
    return "".join(parts)


def _question_html(item: dict[str, Any]) -> str:
    """The differential options and the question stem, when the case has them."""
    parts: list[str] = []
    options = _dict(item.get("mcq")).get("options")
    if isinstance(options, dict):
        options = [f"{k}. {v}" for k, v in options.items()]
    if isinstance(options, list) and options:
        listed = "".join(f"<li>{_text(o)}</li>" for o in options)
        parts.append(f"<h4>Differential options</h4><ul>{listed}</ul>")
    if item.get("stem"):
        parts.append(f"<h4>Question</h4><p>{_text(item['stem'])}</p>")
    return "".join(parts)


def _exams_html(content: dict[str, Any]) -> str:
    exams = [e for e in content.get("imaging_examinations") or [] if isinstance(e, dict)]
    if not exams:
        return ""
    details = _dict(content.get("image_detail"))
    out = ["<h4>Exams: captions and key findings</h4>"]
    for exam in exams:
        figure = str(exam.get("figure"))
        out.append(f"<p><a href='exam:{html.escape(figure, quote=True)}'><b>{_text(figure)}</b></a>"
                   f" {_text(exam.get('image_caption') or '')}")
        findings = exam.get("key_findings")
        if isinstance(findings, str):
            findings = [findings]
        if isinstance(findings, list) and findings:
            joined = "; ".join(_text(str(f).rstrip(" .;")) for f in findings)
            out.append(f"<br><i>Key findings:</i> {joined}.")
        if details.get(figure):
            out.append(f"<br><i>Detail:</i> {_text(details[figure])}")
        out.append("</p>")
    return "".join(out)


class CaseText(QTextBrowser):
    """Shows :func:`case_html`; web links open in the browser, exam links select the exam."""

    examLinkClicked = Signal(str)
    """An exam name in the text was clicked (its figure)."""
    editDiagnosis = Signal()
    """The "edit" link beside the final diagnosis was clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._anchor)
        self.opened: list[str] = []  # links handed to the browser (tests read this)

    def show_case(self, content: dict[str, Any], final_diagnosis: str, top: bool = False) -> None:
        """Show a case; ``top`` scrolls to its beginning (a new case), else keeps the place."""
        bar = 0 if top else self.verticalScrollBar().value()
        self.setHtml(case_html(content, final_diagnosis))
        self.verticalScrollBar().setValue(bar)

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == "edit":
            self.editDiagnosis.emit()
            return
        if url.scheme() == "exam":
            self.examLinkClicked.emit(url.toString()[len("exam:"):])
            return
        self.opened.append(url.toString())
        QDesktopServices.openUrl(url)
