"""`nlibuild serve`'s web application: a Starlette app over the store (nlibuild/web/app.py).

The only package besides cli/serve.py that imports starlette, uvicorn and jinja2; it sits
beside cli/ and calls library modules (nlibuild/workbench/) and the stats tables, never SQL.
"""
