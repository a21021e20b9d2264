-- The Hive 3 `employee` walkthrough (sections 1 and 2), on the embedded default:
-- local Spark, ./warehouse, SQLite transaction store in ./warehouse/.hiveacid/txn.db
DROP TABLE IF EXISTS employee;

CREATE TABLE employee (id int, name string, salary int)
  STORED AS ORC TBLPROPERTIES ('transactional' = 'true');

INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000);

SELECT row__id, id, name, salary FROM employee ORDER BY id;

-- split update: a delete_delta with Tom's old row id, a delta with his new row
UPDATE employee SET salary = 7000 WHERE id = 2;

SELECT row__id, id, name, salary FROM employee ORDER BY id;

EXPLAIN DELETE FROM employee WHERE id = 3;
