"""``HiveAcidParser``: sqlglot's Hive parser plus the Hive ACID statements it lacks.

Every addition is an entry in one of sqlglot's dispatch tables (``STATEMENT_PARSERS``,
``ALTER_PARSERS``, ``SHOW_PARSERS``) or in our own ``TEXT_STATEMENT_PARSERS`` for statements whose
first word is not a sqlglot keyword (``START``, ``ABORT``, ``EXPLAIN``).  Upstream classes are never
mutated: each table is a fresh dict built from the parent's.  Where stock sqlglot would silently fall
back to an opaque ``exp.Command``, this parser either builds a real node or records a parse error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from sqlglot import exp
from sqlglot.parsers.hive import HiveParser
from sqlglot.tokens import TokenType
from sqlglot.trie import TrieResult, in_trie, new_trie

from hiveacid_sql.sql import nodes

_ParserFn = Callable[[Any], "exp.Expr | None"]


class HiveAcidParser(HiveParser):
    """Parses the Hive 3 statements hiveacid-sql runs into real AST nodes, never ``exp.Command``."""

    STATEMENT_PARSERS: ClassVar = {
        **HiveParser.STATEMENT_PARSERS,
        TokenType.SET: lambda self: self._parse_hive_set(),
        TokenType.SHOW: lambda self: self._parse_show(),
    }

    # Statements whose leading words tokenize as plain VARs, matched by text through a trie.
    TEXT_STATEMENT_PARSERS: ClassVar[dict[str, _ParserFn]] = {
        "START TRANSACTION": lambda self: self.expression(exp.Transaction()),
        "ABORT TRANSACTIONS": lambda self: self._parse_abort_transactions(),
        "EXPLAIN": lambda self: self._parse_explain(),
        "MSCK": lambda self: self._parse_msck(),
    }
    TEXT_STATEMENT_TRIE: ClassVar[dict] = new_trie(key.split(" ") for key in TEXT_STATEMENT_PARSERS)

    ALTER_PARSERS: ClassVar = {
        **HiveParser.ALTER_PARSERS,
        "ADD": lambda self: self._parse_alter_table_add_partitions(),
        "COMPACT": lambda self: self._parse_alter_table_compact(),
        "UNSET": lambda self: self._parse_alter_table_unset(),
    }

    PROPERTY_PARSERS: ClassVar = {
        **HiveParser.PROPERTY_PARSERS,
        # Hive 4's CREATE TRANSACTIONAL TABLE (full ACID or insert-only by format: engine/ddl.py)
        "TRANSACTIONAL": lambda self: self.expression(nodes.TransactionalProperty()),
    }

    SHOW_PARSERS: ClassVar = {
        "DATABASES": lambda self: self._parse_show_like("DATABASES"),
        "SCHEMAS": lambda self: self._parse_show_like("SCHEMAS"),
        "TABLES": lambda self: self._parse_show_tables(),
        "TBLPROPERTIES": lambda self: self._parse_show_tblproperties(),
        "CREATE TABLE": lambda self: self._parse_show_of_table("CREATE TABLE"),
        "PARTITIONS": lambda self: self._parse_show_partitions(),
        "COLUMNS": lambda self: self._parse_show_columns(),
        "COMPACTIONS": lambda self: self.expression(nodes.ShowCompactions()),
        "TRANSACTIONS": lambda self: self.expression(nodes.ShowTransactions()),
        "LOCKS": lambda self: self._parse_show_locks(),
        "READ LEASES": lambda self: self.expression(
            nodes.ShowReadLeases(this=self._parse_table_parts(schema=True) if self._curr else None)
        ),
        "VIEWS": lambda self: self._parse_show_views(),
    }
    # The trie must be rebuilt with the table, or SHOW lookups keep using the parent's (empty) trie.
    SHOW_TRIE: ClassVar[dict] = new_trie(key.split(" ") for key in SHOW_PARSERS)

    VERSION_PHRASES: ClassVar = {
        **HiveParser.VERSION_PHRASES,
        ("FOR", "SYSTEM_VERSION"): "VERSION",
    }

    def _parse_version(self) -> exp.Version | None:
        """``VERSION AS OF n`` / ``FOR SYSTEM_VERSION AS OF n`` (time travel): the value is required."""
        token = self._curr
        node = super()._parse_version()
        if node is not None and str(node.args.get("kind")) == "AS OF" and node.expression is None:
            self.raise_error("Expected a version (write id) after AS OF", token)
        return node

    # -- column constraints: Hive 3's options after each one --------------------------------------
    # Hive has none of the key options other dialects take (MATCH, INITIALLY, USING, ..): RELY, NORELY and
    # NOT ENFORCED are read below with ENABLE/DISABLE and VALIDATE/NOVALIDATE, for every kind of constraint.
    KEY_CONSTRAINT_OPTIONS: ClassVar = {}

    def _parse_hive_constraint_options(self) -> list[str]:
        """``[ENABLE|DISABLE|ENFORCED|NOT ENFORCED] [VALIDATE|NOVALIDATE] [RELY|NORELY]`` as upper-case words
        (``NOT ENFORCED`` one word ``NOT_ENFORCED``), in the order written."""
        words: list[str] = []
        while self._curr:
            if self._match_text_seq("NOT", "ENFORCED"):
                words.append("NOT_ENFORCED")
            elif self._match_texts(("ENABLE", "DISABLE", "ENFORCED", "VALIDATE", "NOVALIDATE", "RELY", "NORELY")):
                words.append(self._prev.text.upper())
            else:
                break
        return words

    def _parse_column_constraint(self) -> exp.Expr | None:
        """A column's constraint with Hive's options (``meta['hive_options']``); a ``DEFAULT``'s value keeps
        the text as written (``meta['default_text']``), which Hive's metastore stores and DESCRIBE shows."""
        start = self._index
        node = super()._parse_column_constraint()
        if isinstance(node, exp.ColumnConstraint):
            if isinstance(node.args.get("kind"), exp.DefaultColumnConstraint):
                tokens = self._tokens[start:self._index]
                first = next(i for i, tok in enumerate(tokens) if tok.text.upper() == "DEFAULT") + 1
                if first < len(tokens):
                    node.meta["default_text"] = self.sql[tokens[first].start : tokens[-1].end + 1]
            node.meta["hive_options"] = self._parse_hive_constraint_options()
        return node

    def _parse_unnamed_constraint(self, constraints: Any = None) -> exp.Expr | None:
        """A table constraint (``PRIMARY KEY (..)``, ``FOREIGN KEY .. REFERENCES ..``, ``UNIQUE (..)``) with
        Hive's options in ``meta['hive_options']``."""
        node = super()._parse_unnamed_constraint(constraints)
        if node is not None:
            node.meta["hive_options"] = self._parse_hive_constraint_options()
        return node

    # -- statements ---------------------------------------------------------------------------

    def _parse_statement(self) -> exp.Expr | None:
        curr = self._curr
        if curr and curr.token_type == TokenType.VAR:
            parser = self._find_parser(self.TEXT_STATEMENT_PARSERS, self.TEXT_STATEMENT_TRIE)
            if parser:
                comments = self._prev_comments
                stmt = parser(self)
                if stmt is not None:
                    stmt.add_comments(comments, prepend=True)
                return stmt
            if self._index == 0:
                # A statement never starts with a bare word; say so instead of parsing a column.
                self.raise_error(f"Unknown statement '{curr.text}'", curr)
        return super()._parse_statement()

    def _find_parser(self, parsers: dict[str, Callable], trie: dict) -> Callable | None:
        """sqlglot's trie walk, but stopping at the end of the statement.

        Upstream advances past the last token when a statement ends inside a multi-word key
        (``SHOW CREATE``, ``START``) and raises IndexError; here that is simply "no match".
        """
        index = self._index
        words: list[str] = []
        while self._curr:
            word = self._curr.text.upper()
            words.append(word)
            self._advance()
            result, trie = in_trie(trie, word.split(" "))
            if result == TrieResult.FAILED:
                break
            if result == TrieResult.EXISTS:
                return parsers[" ".join(words)]
        self._retreat(index)
        return None

    def _warn_unsupported(self) -> None:
        """Silence sqlglot's "Falling back to parsing as a 'Command'" log: ``parse`` raises instead."""

    def _parse_abort_transactions(self) -> nodes.AbortTransactions:
        ids: list[exp.Expr] = []
        while self._match(TokenType.NUMBER):
            ids.append(exp.Literal.number(self._prev.text))
        if not ids:
            self.raise_error("ABORT TRANSACTIONS needs at least one transaction id")
            return nodes.AbortTransactions(expressions=[])
        return self.expression(nodes.AbortTransactions(expressions=ids))

    def _parse_msck(self) -> nodes.Msck:
        repair = self._match_text_seq("REPAIR")
        if not self._match(TokenType.TABLE):
            self.raise_error("Expected TABLE after MSCK [REPAIR]")
        table = self._parse_table_parts(schema=True)
        mode = "ADD"
        if self._match_texts(("ADD", "DROP", "SYNC")):
            mode = self._prev.text.upper()
            if not self._match_text_seq("PARTITIONS"):
                self.raise_error(f"Expected PARTITIONS after {mode}")
        return self.expression(nodes.Msck(this=table, mode=mode, repair=repair))

    def _parse_explain(self) -> nodes.Explain:
        kind = None
        if self._curr and self._curr.token_type == TokenType.VAR and self._match_texts(nodes.EXPLAIN_KINDS):
            kind = self._prev.text.upper()
        elif self._curr.token_type == TokenType.ANALYZE and self._next.token_type != TokenType.TABLE:
            # EXPLAIN ANALYZE <query>, as opposed to EXPLAIN of an ANALYZE TABLE statement.
            self._advance()
            kind = "ANALYZE"
        this = self._parse_statement() if self._curr else None
        if this is None:
            self.raise_error("Expected a statement after EXPLAIN")
            return nodes.Explain(kind=kind)
        return self.expression(nodes.Explain(this=this, kind=kind))

    def _parse_hive_set(self) -> exp.Set:
        """Hive's ``SET``, ``SET key`` and ``SET key=value``: key and value are raw text, as in Hive.

        sqlglot's generic SET parses the value as an expression, which loses text such as
        ``root.default`` (it keeps only ``default``) and turns ``SET key`` into a Command.
        """
        if not self._curr:
            return self.expression(exp.Set(expressions=[]))
        start = self._curr
        while self._curr and self._curr.token_type != TokenType.EQ:
            self._advance()
        if self._curr is start:
            self.raise_error("Expected a configuration key after SET")
            return exp.Set(expressions=[])
        key = exp.var(self._find_sql(start, self._prev))
        if not self._match(TokenType.EQ):
            return self.expression(exp.Set(expressions=[exp.SetItem(this=key)]))
        value = ""
        if self._curr:
            value_start = self._curr
            while self._curr:
                self._advance()
            value = self._find_sql(value_start, self._prev)
        # exp.Var directly: ``SET k=`` (an empty value, as Hive allows) would make exp.var raise ValueError
        item = exp.SetItem(this=exp.EQ(this=key, expression=exp.Var(this=value)))
        return self.expression(exp.Set(expressions=[item]))

    def _parse_update_assignment(self) -> exp.Expr | None:
        """``column = value`` in UPDATE and MERGE's UPDATE SET; sqlglot accepts an empty list.

        ``UPDATE SET *`` (MERGE: every target column from the source column of the same name) is a Star.
        """
        if self._match(TokenType.STAR):
            return exp.Star()
        token = self._curr
        node = super()._parse_update_assignment()
        if not isinstance(node, exp.EQ | exp.Star):
            self.raise_error("Expected column = value after SET", token)
        return node

    # -- DML shapes: Hive's grammar, not every dialect's -------------------------------------------
    #
    # sqlglot's DML rules accept other dialects' forms (``DELETE t``, ``UPDATE .. FROM``, ``RETURNING``,
    # ``INSERT t VALUES``, ``MERGE t USING``), which a planner written for Hive's forms would misread
    # (``UPDATE t SET a = 1 FROM s`` updates every row). HiveParser.g: ``deleteStatement: DELETE FROM
    # tableName whereClause?``, ``updateStatement: UPDATE tableName setColumnsClause whereClause?``
    # (``columnAssignmentClause: tableOrColumn EQUAL ..``: an unqualified column), ``insertClause: INSERT
    # OVERWRITE TABLE .. | INSERT INTO TABLE? ..``, ``mergeStatement: MERGE INTO tableName (AS?
    # identifier)? USING ..``. Anything else is refused where Hive's parser stops.

    def _parse_delete(self) -> exp.Delete:
        start = self._index
        self._expect_next(TokenType.FROM, "DELETE")
        node = super()._parse_delete()
        self._refuse_args(node, start, {"using": "USING", "cluster": "ON", "returning": "RETURNING",
                                        "order": "ORDER", "limit": "LIMIT"})
        self._refuse_alias(node.this, "DELETE FROM")
        return node

    def _parse_update(self) -> exp.Update:
        start = self._index
        if self._curr and self._curr.token_type == TokenType.TABLE:
            self.raise_error("mismatched input 'TABLE' after UPDATE: expected a table name", self._curr)
        node = super()._parse_update()
        self._refuse_args(node, start, {"from_": "FROM", "returning": "RETURNING", "order": "ORDER",
                                        "limit": "LIMIT"})
        self._refuse_alias(node.this, "UPDATE")
        for item in node.expressions:
            self._refuse_qualified_target(item, start)
        return node

    def _parse_insert(self) -> exp.Insert | exp.MultitableInserts:
        start = self._index
        if self._match(TokenType.OVERWRITE, advance=False):
            following = self._tokens[self._index + 1] if self._index + 1 < len(self._tokens) else None
            if following is None or following.token_type not in (TokenType.TABLE, TokenType.L_PAREN) and \
                    following.text.upper() not in ("LOCAL", "DIRECTORY"):
                self.raise_error("missing TABLE after INSERT OVERWRITE", following or self._curr)
        else:
            self._expect_next(TokenType.INTO, "INSERT")
        node = super()._parse_insert()
        value = next((t for t in self._tokens[start : self._index] if t.text.upper() == "VALUE"), None)
        if value is not None:  # MySQL's synonym, which sqlglot takes
            self.raise_error("mismatched input 'VALUE': expected VALUES or SELECT", value)
        if isinstance(node, exp.Insert):
            self._refuse_args(node, start, {"returning": "RETURNING", "conflict": "ON", "alternative": "OR",
                                            "ignore": "IGNORE", "where": "WHERE"})
        return node

    def _parse_merge(self) -> exp.Merge:
        start = self._index
        self._expect_next(TokenType.INTO, "MERGE")
        node = super()._parse_merge()
        self._refuse_args(node, start, {"using_cond": "USING", "returning": "RETURNING"})
        return node

    def _expect_next(self, token_type: TokenType, after: str) -> None:
        if not self._curr or self._curr.token_type != token_type:
            self.raise_error(f"missing {token_type.name} at {self._near()} after {after}")

    def _refuse_args(self, node: exp.Expr, start: int, forbidden: dict[str, str]) -> None:
        """A parse error at the keyword that brought in an argument Hive's grammar has no room for."""
        for arg, keyword in forbidden.items():
            if node.args.get(arg):
                token = next(
                    (t for t in self._tokens[start : self._index] if t.text.upper() == keyword), self._prev
                )
                self.raise_error(f"extraneous input '{token.text}': Hive's {node.key.upper()} has no {keyword} clause",
                                 token)

    def _refuse_alias(self, table: exp.Expr | None, statement: str) -> None:
        alias = table.args.get("alias") if isinstance(table, exp.Table) else None
        if alias is not None:
            ident = alias.this if isinstance(alias.this, exp.Identifier) else alias
            token = next((t for t in self._tokens if t.text == ident.name), self._prev)
            self.raise_error(f"extraneous input '{ident.name}': {statement} takes a table name without an alias",
                             token)

    def _refuse_qualified_target(self, item: exp.Expr, start: int) -> None:
        target = item.this if isinstance(item, exp.EQ) else None
        if isinstance(target, exp.Column) and target.table:
            after_set = next(i for i in range(start, self._index) if self._tokens[i].token_type == TokenType.SET)
            token = next((t for t in self._tokens[after_set : self._index] if t.text == target.table), self._prev)
            self.raise_error(f"SET takes a column name, not '{target.sql(dialect='hive')}'", token)

    # -- MERGE ----------------------------------------------------------------------------------

    def _parse_when_matched(self) -> exp.Whens:
        """MERGE's WHEN clauses as Hive's grammar (``HiveParser.g`` ``whenClauses``) spells them.

        sqlglot's own rule takes every dialect's forms and lets keywords go missing (``WHEN MATCHED UPDATE
        SET ..`` without THEN ran, and updated rows). Here each clause is ``WHEN [NOT] MATCHED [AND cond]
        THEN`` + ``UPDATE SET ..`` | ``DELETE`` (matched) or ``INSERT [(cols)] VALUES (..)`` (not matched),
        and anything else is a parse error at the token where Hive's would be. Kept beyond Hive, as the
        README says: ``BY TARGET`` / ``BY SOURCE``, any number of clauses in any order, ``UPDATE SET *``,
        ``INSERT *``.
        """
        if not self._curr or self._curr.token_type != TokenType.WHEN:
            self.raise_error("MERGE needs at least one WHEN [NOT] MATCHED clause")
        whens = []
        while self._match(TokenType.WHEN):
            matched = not self._match(TokenType.NOT)
            if not self._match_text_seq("MATCHED"):
                self.raise_error(f"missing MATCHED at {self._near()} after WHEN{'' if matched else ' NOT'}")
            by_source = False
            if not matched:
                by_source = not self._match_text_seq("BY", "TARGET") and bool(self._match_text_seq("BY", "SOURCE"))
            condition = self._parse_disjunction() if self._match(TokenType.AND) else None
            if not self._match(TokenType.THEN):
                self.raise_error(f"missing THEN at {self._near()}")
            clause = "WHEN MATCHED" if matched else "WHEN NOT MATCHED BY SOURCE" if by_source else "WHEN NOT MATCHED"
            then = self._parse_merge_insert() if not matched and not by_source else self._parse_merge_change(clause)
            if then is None:
                expecting = "INSERT" if not matched and not by_source else "UPDATE or DELETE"
                self.raise_error(f"mismatched input {self._near()} expecting {expecting} in {clause} clause")
            whens.append(
                self.expression(exp.When(matched=matched, source=by_source, condition=condition, then=then))
            )
        return self.expression(exp.Whens(expressions=whens))

    def _near(self) -> str:
        return f"'{self._curr.text}'" if self._curr else "end of statement"

    def _parse_merge_change(self, clause: str) -> exp.Expr | None:
        """``UPDATE SET a = .., ..`` (or ``SET *``) or ``DELETE``; None when neither starts here."""
        if self._match(TokenType.DELETE):
            return self.expression(exp.Var(this="DELETE"))
        if not self._match(TokenType.UPDATE):
            return None
        if not self._match(TokenType.SET):
            self.raise_error(f"missing SET at {self._near()} in {clause} THEN UPDATE")
        return self.expression(exp.Update(expressions=self._parse_csv(self._parse_update_assignment)))

    def _parse_merge_insert(self) -> exp.Expr | None:
        """``INSERT [(cols)] VALUES (..)`` or ``INSERT *``; None when INSERT does not start here."""
        if not self._match(TokenType.INSERT):
            return None
        if self._match(TokenType.STAR):
            return self.expression(exp.Insert(this=exp.Star()))
        columns = self._parse_value(values=False) if self._curr and self._curr.token_type == TokenType.L_PAREN else None
        if not self._match(TokenType.VALUES):
            self.raise_error(f"missing VALUES at {self._near()} in WHEN NOT MATCHED THEN INSERT")
        return self.expression(exp.Insert(this=columns, expression=self._parse_value()))

    # -- ALTER TABLE ----------------------------------------------------------------------------

    def _parse_alter(self) -> exp.Alter | exp.Command | nodes.Compact:  # type: ignore[override]  # ours adds COMPACT
        node = super()._parse_alter()
        if not isinstance(node, exp.Alter):
            return node
        compacts = [a for a in node.args.get("actions") or [] if isinstance(a, nodes.Compact)]
        if not compacts:
            return node
        # COMPACT is a statement of its own, not an ALTER action: lift it, moving the table's
        # PARTITION (...) spec, which sqlglot attaches to the table, onto the Compact node.
        compact = compacts[0]
        table = node.this
        partition = table.args.get("partition") if table else None
        if partition is not None:
            table.set("partition", None)
        compact.set("this", table)
        compact.set("partition", partition)
        return self.validate_expression(compact)

    def _parse_alter_table_compact(self) -> nodes.Compact:
        token = self._curr
        kind_literal = self._parse_string()
        kind = kind_literal.name.lower() if kind_literal else None
        if kind not in nodes.COMPACTION_KINDS:
            self.raise_error("Compaction type must be 'minor' or 'major'", token)
        wait = False
        if self._match(TokenType.AND):
            if not self._match_text_seq("WAIT"):
                self.raise_error("Expected WAIT after AND")
            wait = True
        properties = None
        if self._match_text_seq("WITH", "OVERWRITE", "TBLPROPERTIES"):
            props = self._parse_wrapped_csv(self._parse_property)
            properties = self.expression(exp.Properties(expressions=props))
        if self._curr:
            self.raise_error("Unexpected text after the COMPACT clause")
        # `this` is set by _parse_alter once the table is known, so no validation here.
        return nodes.Compact(kind=kind, wait=wait, properties=properties)

    def _parse_alter_table_add_partitions(self) -> list[exp.Expr]:
        """Hive's ``ADD [IF NOT EXISTS] PARTITION (spec) [LOCATION 'l'] [PARTITION (spec) ...]``.

        sqlglot parses one partition (as an anonymous function) and falls back to a Command for more;
        anything that is not a partition list (``ADD COLUMNS``) goes to sqlglot's own parser.
        """
        index = self._index
        exists = self._parse_exists(not_=True)
        if not self._match(TokenType.PARTITION, advance=False):
            self._retreat(index)
            return super()._parse_alter_table_add()
        actions: list[exp.Expr] = []
        while self._curr and self._curr.token_type == TokenType.PARTITION:
            partition = self._parse_partition()
            location = None
            if self._match_text_seq("LOCATION"):
                location = self._parse_string()
            actions.append(self.expression(exp.AddPartition(this=partition, exists=exists, location=location)))
        return actions

    def _parse_alter_table_unset(self) -> nodes.UnsetProperties | None:
        if not self._match_text_seq("TBLPROPERTIES"):
            self.raise_error("Expected TBLPROPERTIES after UNSET")
            return None
        exists = self._parse_exists()
        keys = self._parse_wrapped_csv(self._parse_string)
        return self.expression(nodes.UnsetProperties(expressions=keys, exists=exists))

    # -- SHOW -----------------------------------------------------------------------------------

    def _parse_show(self) -> exp.Expr | None:
        parser = self._find_parser(self.SHOW_PARSERS, self.SHOW_TRIE)
        if parser:
            return parser(self)
        if self._curr:
            self.raise_error("Unknown SHOW statement", self._curr)
        else:
            self.raise_error("Expected what to SHOW, e.g. TABLES or COMPACTIONS")
        return self._parse_as_command(self._prev)

    def _parse_show_pattern(self) -> exp.Expr | None:
        """``[LIKE] 'pattern'``: Hive allows the pattern with or without LIKE."""
        like = self._match(TokenType.LIKE)
        pattern = self._parse_string()
        if like and pattern is None:
            self.raise_error("Expected a quoted pattern after LIKE")
        return pattern

    def _parse_show_like(self, what: str) -> exp.Show:
        return self.expression(exp.Show(this=what, like=self._parse_show_pattern()))

    def _parse_show_tables(self) -> exp.Show:
        db = self._parse_id_var() if self._match_set((TokenType.IN, TokenType.FROM)) else None
        return self.expression(exp.Show(this="TABLES", db=db, like=self._parse_show_pattern()))

    def _parse_show_views(self) -> nodes.ShowViews:
        db = self._parse_id_var() if self._match_set((TokenType.IN, TokenType.FROM)) else None
        return self.expression(nodes.ShowViews(db=db, like=self._parse_show_pattern()))

    def _parse_show_of_table(self, what: str) -> exp.Show:
        return self.expression(exp.Show(this=what, target=self._parse_table_parts(schema=True)))

    def _parse_show_partitions(self) -> exp.Show:
        target = self._parse_table_parts(schema=True)
        partition = self._parse_partition()
        # sqlglot's Show has no partition argument: the spec rides in ``where`` (it filters the list).
        return self.expression(exp.Show(this="PARTITIONS", target=target, where=partition))

    def _parse_show_columns(self) -> exp.Show:
        if not self._match_set((TokenType.IN, TokenType.FROM)):
            self.raise_error("Expected IN or FROM after SHOW COLUMNS")
        target = self._parse_table_parts(schema=True)
        db = self._parse_id_var() if self._match_set((TokenType.IN, TokenType.FROM)) else None
        return self.expression(
            exp.Show(this="COLUMNS", target=target, db=db, like=self._parse_show_pattern())
        )

    def _parse_show_tblproperties(self) -> nodes.ShowTblProperties:
        table = self._parse_table_parts(schema=True)
        key = (
            self._parse_wrapped(self._parse_string) if self._match(TokenType.L_PAREN, advance=False) else None
        )
        return self.expression(nodes.ShowTblProperties(this=table, expression=key))

    def _parse_show_locks(self) -> nodes.ShowLocks:
        table = None
        partition = None
        if self._curr and not self._match_text_seq("EXTENDED", advance=False):
            table = self._parse_table_parts(schema=True)
            partition = self._parse_partition()
        extended = self._match_text_seq("EXTENDED")
        return self.expression(nodes.ShowLocks(this=table, partition=partition, extended=extended))
