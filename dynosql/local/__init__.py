"""The embedded backend of ``--local`` and the in-process tests: a moto DynamoDB (and S3) server
in this process, with DynamoDB's capacity metering, number and condition rules, and answers
without moto's slow paths. Beside the AWS edge (`dynosql.dynamo`), not inside it: the edge
talks to it over HTTP like to any endpoint, and knows it only by the headers it sends."""
