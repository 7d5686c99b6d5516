"""How the Review screen looks beyond the app stylesheet: its own labels, panes and dense tables."""

STYLE = """
QLabel#conversationTitle { font-size: 11pt; padding: 6px 10px 2px 10px; }
QLabel#conversationSub { color: #475569; padding: 0 10px 6px 10px; }
QLabel#paneTitle { font-weight: 600; color: #334155; padding: 6px 2px 2px 2px; }
QLabel#countLabel { color: #475569; }
QLabel#pendingNote { color: #7c3aed; font-weight: 600; }
QLabel#verdictTitle { padding-top: 2px; }
QPushButton#valueButton { padding: 2px 6px; }
QPushButton#saveButton { padding: 3px 10px; }
QTextBrowser#transcript, QTreeWidget#timeline { border: 1px solid #e2e8f0; }
QTableView#conversationList, QTableView#verdictTable, QTreeWidget#timeline { font-size: 9pt; }
QTableView#conversationList QHeaderView::section, QTableView#verdictTable QHeaderView::section { font-size: 9pt; padding: 4px 2px; }
"""
