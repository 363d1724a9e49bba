"""The HTTP API's parts: reading bodies safely, error shapes, keys, routes, the service probes, docs.

`clauseguard.interfaces.api.create_app` assembles them; every route stays one engine call.
"""
