"""The HTTP API and web page of clinqa (``clinqa serve``): :func:`clinqa.service.app.create_app`."""
