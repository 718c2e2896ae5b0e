SHOW TABLES;

SELECT sk FROM tenants
  WHERE pk = :p;
