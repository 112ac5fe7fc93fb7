"""gui"""

from annotator.gui.qt_startup import quicken_pyside_imports

quicken_pyside_imports()
