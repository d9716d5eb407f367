"""Helpers shared by the test modules. A test module imports these, never another test module
(pytest would collect the imported one's tests twice): pytest fixtures go in a conftest.py."""
