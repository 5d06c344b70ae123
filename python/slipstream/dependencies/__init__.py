"""Dependency injection (FastAPI's): Depends, Security, SecurityScopes; the tree, its flattening into the route's
RouteSpec, and the runner that solves it per request (see README "Dependencies")."""

from .params import Depends, DependsParam, Security, SecurityParam, SecurityScopes

__all__ = ["Depends", "DependsParam", "Security", "SecurityParam", "SecurityScopes"]
