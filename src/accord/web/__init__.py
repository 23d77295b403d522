"""Read-only web view of run directories (`accord serve`): a JSON API and a static page.

Needs the ``web`` extra (FastAPI and uvicorn). See docs/web.md.
"""

from accord.web.app import create_app

__all__ = ["create_app"]
