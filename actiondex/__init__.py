"""The composition root: the ``actiondex`` command and the demo web.

The only package that imports crawler/, registry/ and api/ together.
"""
