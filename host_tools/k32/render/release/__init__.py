"""Render-and-hash: a Release Template + verified digest + target -> one
content-hashed manifest set (../manifest_set.py). gotemplate.py is the template language, template.py
loads and digests a template directory, render.py renders, inspect.py reads the target shape."""
