"""The classroom deploy: several app processes behind nginx (serve_class.py)."""
