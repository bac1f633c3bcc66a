//! Statements sent to the writer connection's thread together: one round trip for all of them.
//!
//! sqlx runs a SQLite connection on a thread of its own, and every statement is a hand-off to
//! that thread and back. On an idle machine each hand-off waits for a CPU to wake, which is
//! most of what a statement costs (`benches/record_handoffs.rs`). A write transaction keeps its
//! writes ([`super::tx::SqliteTx::write`]) and sends them here with its next read or its commit.
//!
//! The statements go as one text, run one after the other by sqlx's SQLite driver, each with
//! its own values from one shared list: placeholders are written positional when every
//! statement numbers them in order, and renumbered past the values before their statement
//! otherwise ([`joined`]). sqlx marks this way of sending as deprecated for a later release
//! (launchbadge/sqlx#3108); the workspace pins 0.8.

use std::fmt::Write as _;

use futures::TryStreamExt;
use sqlx::sqlite::SqliteRow;
use sqlx::{Either, Executor, SqliteConnection};

use super::sql::stmt::{failed, Args, Stmt};
use crate::store::StoreError;

/// Sends `stmts` in one round trip; the rows each answered, in order. Should one fail, those
/// after it are not run, and the error is that one's.
pub async fn send(
    conn: &mut SqliteConnection,
    stmts: Vec<Stmt>,
) -> Result<Vec<Vec<SqliteRow>>, StoreError> {
    let count = stmts.len();
    if count == 0 {
        return Ok(Vec::new());
    }
    let conflicts: Vec<_> = stmts.iter().map(|s| s.conflict).collect();
    let mut args = Args::default();
    let mut texts = Vec::with_capacity(count);
    for stmt in stmts {
        let offset = args_len(&args);
        let text = stmt.bind_into(&mut args)?;
        texts.push((text, offset, args_len(&args) - offset));
    }
    let sql = joined(&texts);
    let mut answers: Vec<Vec<SqliteRow>> = Vec::with_capacity(count);
    let mut rows = Vec::new();
    let mut stream = conn.fetch_many(sqlx::query_with(&sql, args));
    loop {
        match stream.try_next().await {
            Ok(Some(Either::Left(_done))) => answers.push(std::mem::take(&mut rows)),
            Ok(Some(Either::Right(row))) => rows.push(row),
            Ok(None) => break,
            Err(err) => {
                let conflict = conflicts.get(answers.len()).copied().flatten();
                return Err(failed(err, conflict));
            }
        }
    }
    if answers.len() != count {
        return Err(StoreError::Corrupt(format!(
            "{count} statements were sent together and {} answered",
            answers.len()
        )));
    }
    Ok(answers)
}

fn args_len(args: &Args) -> usize {
    sqlx::Arguments::len(args)
}

/// The statements as one text. Each statement's placeholders name its own values in the shared
/// list: written `?` when every statement's are `$1`, `$2`, … in order, each once — SQLite
/// binds those by position, where it finds each named one by walking every name of its
/// statement (quadratic in a multi-row insert's thousands of values); otherwise each `$N`
/// moves by the values before its statement. `texts`: (text, values before, its values).
fn joined(texts: &[(std::borrow::Cow<'static, str>, usize, usize)]) -> String {
    let mut sql = String::with_capacity(texts.iter().map(|(t, ..)| t.len() + 2).sum());
    let in_order = texts
        .iter()
        .all(|(text, _, values)| placeholders_in_order(text) == Some(*values));
    for (text, offset, _) in texts {
        if in_order {
            rewrite(text, &mut sql, |_, out| out.push('?'));
        } else {
            // Writing to a String cannot fail.
            rewrite(text, &mut sql, |n, out| {
                let _ = write!(out, "${}", n + offset);
            });
        }
        sql.push_str(";\n");
    }
    sql
}

/// How many placeholders `sql` has when they are `$1`, `$2`, … in order, each once.
fn placeholders_in_order(sql: &str) -> Option<usize> {
    let mut seen = 0;
    let mut in_order = true;
    rewrite(sql, &mut String::new(), |n, _| {
        seen += 1;
        in_order &= n == seen;
    });
    in_order.then_some(seen)
}

/// Appends `sql` to `out` with each placeholder `$N` outside quotes written by `each(N, out)`.
fn rewrite(sql: &str, out: &mut String, mut each: impl FnMut(usize, &mut String)) {
    if !sql.contains('$') {
        out.push_str(sql);
        return;
    }
    let mut quoted = false;
    let mut chars = sql.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '$' if !quoted && chars.peek().is_some_and(|(_, d)| d.is_ascii_digit()) => {
                let mut n: usize = 0;
                while let Some(&(_, d)) = chars.peek() {
                    let Some(digit) = d.to_digit(10) else { break };
                    n = n.saturating_mul(10).saturating_add(digit as usize);
                    chars.next();
                }
                each(n, out);
            }
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renumbered(sql: &str, offset: usize) -> String {
        let mut out = String::new();
        rewrite(sql, &mut out, |n, out| {
            let _ = write!(out, "${}", n + offset);
        });
        out
    }

    /// Each statement's `$1` must name its own first value in the shared list, and a `$` in a
    /// string literal (a JSON path) is text, not a placeholder.
    #[test]
    fn placeholders_move_by_the_values_before_them_and_literals_stay() {
        assert_eq!(
            renumbered("INSERT INTO t VALUES ($1, $2, $10)", 3),
            "INSERT INTO t VALUES ($4, $5, $13)",
            "every placeholder moves by the offset, multi-digit ones whole"
        );
        assert_eq!(
            renumbered("SELECT json_extract(d, '$.a'), '$1' FROM t WHERE x = $1", 5),
            "SELECT json_extract(d, '$.a'), '$1' FROM t WHERE x = $6",
            "text inside quotes is never renumbered"
        );
        assert_eq!(
            renumbered("SELECT 'it''s', $2", 1),
            "SELECT 'it''s', $3",
            "an escaped quote leaves the literal and the placeholder after it as they were"
        );
    }

    /// Placeholders `$1`, `$2`, … in order, each once, are sent positional (`?`); any other
    /// use in any statement keeps every statement's `$N`, moved past the values before it.
    #[test]
    fn placeholders_go_positional_only_when_every_statement_numbers_them_in_order() {
        let text = |t: &'static str| std::borrow::Cow::Borrowed(t);
        assert_eq!(
            joined(&[(text("A $1, '$9', $2"), 0, 2), (text("B $1"), 2, 1)]),
            "A ?, '$9', ?;\nB ?;\n",
            "in order everywhere: positional, literals untouched"
        );
        assert_eq!(
            joined(&[(text("A $1, $2"), 0, 2), (text("B $1 OR $1"), 2, 1)]),
            "A $1, $2;\nB $3 OR $3;\n",
            "one statement names a value twice: every statement keeps numbered placeholders"
        );
        assert_eq!(
            placeholders_in_order("A $2, $1"),
            None,
            "out of order is not positional"
        );
    }

    /// The statements run in order on one connection: a read sent after writes sees them, and
    /// each answers its own rows.
    #[tokio::test]
    async fn writes_and_a_read_sent_together_answer_in_order() {
        use sqlx::Connection;
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
            .execute(&mut conn)
            .await
            .unwrap();
        let stmts = vec![
            Stmt::new("INSERT INTO t (v) VALUES ($1) RETURNING id").bind("a".to_owned()),
            Stmt::new("INSERT INTO t (v) VALUES ($1), ($2)")
                .bind("b".to_owned())
                .bind("c".to_owned()),
            // `$1` twice: this batch goes with numbered placeholders (see `joined`).
            Stmt::new("SELECT v FROM t WHERE v <> $1 AND v <> $1 ORDER BY id").bind("b".to_owned()),
        ];
        let answers = send(&mut conn, stmts).await.unwrap();
        let values: Vec<String> = answers[2]
            .iter()
            .map(|r| sqlx::Row::get::<String, _>(r, "v"))
            .collect();
        assert_eq!(
            (answers[0].len(), answers[1].len(), values),
            (1, 0, vec!["a".to_owned(), "c".to_owned()]),
            "the first answers its RETURNING row, the second none, the read sees both writes \
             with its own value bound"
        );

        // Every placeholder in order: this batch goes positional.
        let mut clash = Stmt::new("INSERT INTO t (v) VALUES ($1)").bind("a".to_owned());
        clash.conflict = Some("taken");
        let sent = send(
            &mut conn,
            vec![
                Stmt::new("INSERT INTO t (v) VALUES ($1)").bind("d".to_owned()),
                clash,
            ],
        )
        .await;
        let Err(err) = sent else {
            panic!("a unique violation must fail the statements sent together");
        };
        assert!(
            matches!(&err, StoreError::Conflict(words) if words == "taken"),
            "the failing statement's own meaning of a unique violation is kept: {err:?}"
        );
    }
}
