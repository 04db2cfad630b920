"""Drawing and writing: the notebooks rendered, make headline's Markdown, tables and plots."""
