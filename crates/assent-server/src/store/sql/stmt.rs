//! A write held as its text and values, so that the backend decides when it is sent
//! (`WriteTx::write`): PostgreSQL runs it at once; SQLite keeps it and sends what a
//! transaction kept with its next statement, or with its commit — one round trip to the
//! connection's thread for all of them, where each statement was one before
//! (`sqlite/batch.rs`). Placeholders are numbered (`$1`, `$2`, …), as in every other
//! statement of both backends; [`Stmt::push_bind`] numbers the ones it writes.

use std::borrow::Cow;
use std::fmt::Write as _;

use sqlx::error::BoxDynError;
use sqlx::{Arguments, Encode, Type};

use super::backend::{Conn, Db, DbRow};
use crate::store::StoreError;

/// The values a statement is sent with.
pub type Args = <Db as sqlx::Database>::Arguments<'static>;

/// One value, added to the arguments when the statement is sent.
type Bind = Box<dyn FnOnce(&mut Args) -> Result<(), BoxDynError> + Send>;

/// What a write's answer is kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returns {
    /// Nothing: rows written.
    Nothing,
    /// The `id` of the event it appended (`RETURNING id`): the transaction's newest.
    EventId,
}

/// A statement and its values, not sent yet.
pub struct Stmt {
    sql: Cow<'static, str>,
    binds: Vec<Bind>,
    pub returns: Returns,
    /// What a unique violation means, when it means a conflict the caller handles.
    pub conflict: Option<&'static str>,
}

impl std::fmt::Debug for Stmt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stmt")
            .field("sql", &self.sql)
            .field("values", &self.binds.len())
            .finish_non_exhaustive()
    }
}

impl Stmt {
    pub fn new(sql: impl Into<Cow<'static, str>>) -> Stmt {
        Stmt {
            sql: sql.into(),
            binds: Vec::new(),
            returns: Returns::Nothing,
            conflict: None,
        }
    }

    /// Binds the next value (`$1` first), as `sqlx::query(…).bind(…)` does.
    #[must_use]
    pub fn bind<T>(mut self, value: T) -> Stmt
    where
        T: Encode<'static, Db> + Type<Db> + Send + 'static,
    {
        self.add(value);
        self
    }

    /// Writes the next placeholder into the text and binds `value` to it.
    pub fn push_bind<T>(&mut self, value: T) -> &mut Stmt
    where
        T: Encode<'static, Db> + Type<Db> + Send + 'static,
    {
        self.add(value);
        let n = self.binds.len();
        // Writing to a String cannot fail.
        let _ = write!(self.sql.to_mut(), "${n}");
        self
    }

    /// Appends one row of values, `($n, $n+1, …)` — after `, ` but for the statement's first —
    /// with the values `bind_row` binds ([`Tuple::bind`]).
    pub fn push_row(&mut self, first: bool, bind_row: impl FnOnce(&mut Tuple<'_>)) -> &mut Stmt {
        self.push(if first { "(" } else { ", (" });
        let mut tuple = Tuple {
            stmt: self,
            empty: true,
        };
        bind_row(&mut tuple);
        self.push(")")
    }

    /// Appends text.
    pub fn push(&mut self, sql: &str) -> &mut Stmt {
        self.sql.to_mut().push_str(sql);
        self
    }

    fn add<T>(&mut self, value: T)
    where
        T: Encode<'static, Db> + Type<Db> + Send + 'static,
    {
        self.binds
            .push(Box::new(move |args: &mut Args| args.add(value)));
    }

    /// Runs it alone on `conn`; the rows it answered.
    pub async fn fetch_all(self, conn: &mut Conn) -> Result<Vec<DbRow>, StoreError> {
        let conflict = self.conflict;
        let mut args = Args::default();
        let sql = self.bind_into(&mut args)?;
        sqlx::query_with(&sql, args)
            .fetch_all(conn)
            .await
            .map_err(|err| failed(err, conflict))
    }

    /// Its text, and its values added to `args` in order.
    pub fn bind_into(self, args: &mut Args) -> Result<Cow<'static, str>, sqlx::Error> {
        for bind in self.binds {
            bind(args).map_err(sqlx::Error::Encode)?;
        }
        Ok(self.sql)
    }
}

/// The values of one row being appended ([`Stmt::push_row`]).
pub struct Tuple<'a> {
    stmt: &'a mut Stmt,
    empty: bool,
}

impl Tuple<'_> {
    /// Binds the row's next value.
    pub fn bind<T>(&mut self, value: T) -> &mut Self
    where
        T: Encode<'static, Db> + Type<Db> + Send + 'static,
    {
        if !std::mem::take(&mut self.empty) {
            self.stmt.push(", ");
        }
        self.stmt.push_bind(value);
        self
    }
}

/// `err`, as the store tells it: a unique violation of a statement that names one (`conflict`)
/// is a [`StoreError::Conflict`] with those words.
pub fn failed(err: sqlx::Error, conflict: Option<&'static str>) -> StoreError {
    match (&err, conflict) {
        (sqlx::Error::Database(db), Some(words)) if db.is_unique_violation() => {
            StoreError::Conflict(words.to_owned())
        }
        _ => err.into(),
    }
}
