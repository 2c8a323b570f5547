"""The studio: a local web app (Starlette on uvicorn) to customize a set with controls
made from the parameters' declarations and a live 3D preview, and to download exactly the
files the build writes. Only the command line imports it (``stratstone-cad studio``)."""
