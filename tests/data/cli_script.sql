-- A script for the CLI tests: comments, a ';' in comments and strings, statements over lines.
-- This line comment has a ; and 'a quote' and /* what looks like a block */ in it
SELECT name, size FROM drive
WHERE PK = 'DRIVE#alice' AND SK = 'root/photos/2026/beach.jpg';  /* block comment; after it */

/* a block comment
   over two lines; SELECT * FROM nope; -- not a statement */
SELECT name FROM drive
WHERE PK = 'DRIVE#alice' AND begins_with(SK, 'root/documents/misc/') AND name <> 'a;b' LIMIT 2;
SELECT COUNT(*) AS n FROM tenants
WHERE pk = 'TENANT#acme' AND sk BETWEEN 'INVOICE#000001' AND 'INVOICE#000003;--x /* y */'
