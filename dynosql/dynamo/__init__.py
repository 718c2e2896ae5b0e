"""The AWS edge: the backend port's boto3 adapter (`backend`), and the only package besides the
embedded server (`dynosql.local`) that imports boto3 and botocore: clients, the catalog cache,
capabilities, the read and write executors, retries, wire decoding and sizes."""
