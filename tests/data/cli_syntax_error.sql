SHOW TABLES;
-- the next statement has a syntax error at '=' (line 3, column 33)
SELECT name FROM drive WHERE PK = ;
SELECT name FROM drive WHERE PK = 'DRIVE#alice' AND SK = 'root/photos/2026/beach.jpg';
