-- The Hive 3 `employee` walkthrough (sections 1 to 4), on the embedded default:
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

-- Section 3, MERGE: start again from the state after step 1; each WHEN clause writes its own
-- statement id (the INSERT clause statement 0, the UPDATE clause statement 1)
DROP TABLE IF EXISTS employee;
DROP TABLE IF EXISTS employee_update;

CREATE TABLE employee (id int, name string, salary int)
  STORED AS ORC TBLPROPERTIES ('transactional' = 'true');

INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000);

CREATE TABLE employee_update (id int, name string, salary int);

INSERT INTO employee_update VALUES (2, 'Tom', 7000), (4, 'Mary', 9000);

MERGE INTO employee AS a
USING employee_update AS b ON a.id = b.id
WHEN MATCHED THEN UPDATE SET salary = b.salary
WHEN NOT MATCHED THEN INSERT VALUES (b.id, b.name, b.salary);

SELECT row__id, id, name, salary FROM employee ORDER BY id;

-- Section 4, compaction: minor folds the deltas into delta_0000001_0000002 and the delete deltas into
-- delete_delta_0000001_0000002 (both versions of Tom kept); major writes base_0000002, every row
-- keeping its row__id. AND WAIT runs the compaction in this session and returns when it is done.
ALTER TABLE employee COMPACT 'minor' AND WAIT;

ALTER TABLE employee COMPACT 'major' AND WAIT;

SHOW COMPACTIONS;

SELECT row__id, id, name, salary FROM employee ORDER BY id;

DESCRIBE HISTORY employee;
