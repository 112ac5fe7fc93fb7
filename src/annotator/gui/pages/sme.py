"""The SME review page: physicians judge system outputs against benchmark specifications.

Tab "Verdict": the SME's queue, the item (input, ground truth, output, field-level diff),
the verdict form and the benchmark card; keys A / X, P / F, digits for the described
levels, R rationale, Ctrl+Enter submit, J / K next / previous, Ctrl+Z / Ctrl+Shift+Z.
Every change is saved at once and attributed; the view is blind until submit.
Tabs "Conflicts" and "Results": seniors and curators only (they show others' verdicts).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QApplication, QTabWidget, QVBoxLayout, QWidget

from annotator.gui.context import GuiContext
from annotator.gui.pages import MessagePage
from annotator.gui.sme.conflicts_tab import ConflictsTab
from annotator.gui.sme.keymap import MAX_LEVEL_KEYS, SME_ACTIONS
from annotator.gui.sme.results_tab import ResultsTab
from annotator.gui.sme.verdict_tab import VerdictTab
from annotator.services.sme.view_extra import may_decide, may_see_others

PAGE_ID = "sme"


class SmePage(QWidget):
    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        assert context.project is not None and context.user is not None
        self.context = context
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget(self)
        layout.addWidget(self.tabs)
        self.verdict = VerdictTab(context)
        self.tabs.addTab(self.verdict, "Verdict")
        self.conflicts: ConflictsTab | None = None
        self.results: ResultsTab | None = None
        if may_see_others(context.project, context.user):
            self.conflicts = ConflictsTab(context, may_decide(context.project, context.user))
            self.results = ResultsTab(context)
            self.conflicts.decided.connect(self._results_out_of_date)
            self.tabs.addTab(self.conflicts, "Conflicts")
            self.tabs.addTab(self.results, "Results")
        self.tabs.currentChanged.connect(self._tab_changed)
        self._register_actions()
        self.verdict.load_filter()
        self.verdict.reload_queue()
        if not self.verdict.entries and self.conflicts is not None:
            self.tabs.setCurrentWidget(self.conflicts)  # a senior without items: their work

    def _handlers(self) -> dict[str, Callable[[], None]]:
        v = self.verdict

        def choose(key: str, value: str) -> Callable[[], None]:
            return lambda: v.choose(key, value)

        def level(n: int) -> Callable[[], None]:
            return lambda: v.form.press_level(n)

        return {
            "sme.applicable": choose("applicability", "applicable"),
            "sme.excluded": choose("applicability", "excluded"),
            "sme.pass": choose("outcome", "pass"),
            "sme.flag": choose("outcome", "flag"),
            **{f"sme.level.{n}": level(n) for n in range(1, MAX_LEVEL_KEYS + 1)},
            "sme.rationale": v.focus_rationale,
            "sme.submit": v.submit,
            "sme.submit.enter": v.submit,
            "sme.undo": v.undo_step,
            "sme.redo": v.redo_step,
            "sme.next": lambda: v.step(1),
            "sme.previous": lambda: v.step(-1),
        }

    def _register_actions(self) -> None:
        """Verdict keys act on the verdict tab only, through the window's registry."""
        registry = self.context.registry_for(self)
        table = self._handlers()
        for spec in SME_ACTIONS:
            registry.register(spec, table[spec.id], self.verdict, page=PAGE_ID)

    def _results_out_of_date(self) -> None:
        if self.results is not None:
            self.results.stale = True

    def _tab_changed(self, index: int) -> None:
        tab = self.tabs.widget(index)
        if tab is self.conflicts and self.conflicts is not None:
            self.conflicts.reload()
        elif tab is self.results and self.results is not None and self.results.stale:
            self.results.refresh()

    def ready(self) -> bool:
        """False while results are computed off the GUI thread (screenshots wait)."""
        return self.results is None or not self.results.busy

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        # The verdict keys act within the verdict tab: start with the focus in it.
        focus = QApplication.focusWidget()
        if self.tabs.currentWidget() is self.verdict and not (
            focus is not None and self.verdict.isAncestorOf(focus)
        ):
            self.verdict.queue.setFocus()

    def shutdown(self) -> None:
        """Save typed text that has not paused yet and the active time measured (the window
        is closing or switching)."""
        self.verdict.form.flush()
        self.verdict.activity.flush(self.verdict.task)


def Page(context: GuiContext) -> QWidget:  # noqa: N802 - the page protocol's name
    """The SME review page for ``context.user``, or a sentence saying why there is none."""
    if context.project is None:
        return MessagePage("SME review", "Open a project with --project to review items.")
    if context.user is None:
        return MessagePage("SME review", "Choose who you are to review items.")
    return SmePage(context)
