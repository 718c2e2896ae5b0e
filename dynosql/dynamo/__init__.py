"""The AWS edge: the only package that imports boto3 and botocore (clients, the catalog cache,
capabilities, the read and write executors, retries, wire decoding and sizes, the embedded server)."""
