"""Wire strings of every errsvc vocabulary (generated: errsvc_client.gen.wire).

>>> from errsvc_client.wire import AgentErrorCode
>>> resp.agent_error.code == AgentErrorCode.RATE_LIMITED
"""

from errsvc_client.gen.wire import *  # noqa: F401,F403
from errsvc_client.gen.wire import __all__  # noqa: F401
