"""Planning: a bound statement and a table description → the cheapest Plan. Pure: no I/O."""

from dynosql.plan.model import Estimate, Plan, Request
from dynosql.plan.planner import Options, plan_full_scan, plan_select

__all__ = ["Estimate", "Options", "Plan", "Request", "plan_full_scan", "plan_select"]
