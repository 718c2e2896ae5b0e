"""Planning: a bound statement and a table description → the cheapest Plan. Pure: no I/O.

Empty on purpose: the AWS edge imports the plan's data (``model``, ``port``, ``schema``,
``cost``) and would otherwise load the planner, the evaluator and the SQL tree with them.
The planner is ``planner.plan_select``; the plan is ``model.Plan``.
"""
