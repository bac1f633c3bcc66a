//! A shell command line parsed with `brush-parser` and flattened into the simple commands it
//! runs: `&&`, `||`, `;`, pipes, subshells, groups, control flow, `$(…)`, backticks, process
//! substitutions and `sh -c`/`eval` scripts are all seen through. `cd` is followed, so
//! later relative paths resolve where the shell would be.

pub(crate) mod guard;
pub(crate) mod plain;
pub(crate) mod word;
pub mod wrappers;

use brush_parser::ast::{
    self, AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, SeparatorOperator,
    SimpleCommand,
};
use brush_parser::ParserOptions;

use crate::paths::normalize;
use crate::shell::guard::{
    bracket_depth, has_empty_heredoc_delimiter, has_oversized_fd, spaced_parens,
};
use crate::shell::word::{expand, guarded, heredoc_substitutions, quote, WordEnv};

use crate::shell::wrappers::{effective, program_name, raises_privileges};

/// Deepest nesting of scripts inside scripts (`$(…)`, `sh -c`) that is followed.
const MAX_DEPTH: usize = 8;
/// Deepest bracket nesting handed to the parser (it recurses).
const MAX_BRACKETS: usize = 64;
/// Most `(` operators (subshells, groups, function parens) in one script handed to the
/// parser, and in one line overall. The parser backtracks on each unclosed `(`, so its time
/// grows about 2.3× per one (found by fuzzing: 26 of them took 82 s); 12 bound it to ~1 ms
/// per script, the total to a few ms per line.
const MAX_PARENS: usize = 12;
const MAX_PARENS_PER_LINE: usize = 64;

/// A file a command's redirection opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// Normalised absolute path.
    pub path: String,
    pub write: bool,
}

/// One simple command the line runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedCommand {
    /// Words after quote removal, wrappers included (`sudo rm -rf x`).
    pub argv: Vec<String>,
    /// `NAME=value` prefixes.
    pub assignments: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// Where it runs (after any `cd` before it).
    pub cwd: String,
    /// Which pipeline it is in, its place in it and the pipeline's length.
    pub pipeline: usize,
    pub stage: usize,
    pub stages: usize,
    /// Some word is only known at run time.
    pub dynamic: bool,
    /// Commands (by index) of its `$(…)` and `<(…)` substitutions.
    pub substitutions: Vec<usize>,
    /// Its arguments are a script that was parsed (`bash -c`, `eval`).
    pub runs_inline_script: bool,
    /// Runs with elevated privileges: under `sudo`/`doas` itself, or in a script such a
    /// command runs (`sudo bash -c 'rm -rf /etc/x'`).
    pub privileged: bool,
    /// Its redirections, spelled canonically (`2>&1`, `>/abs/path`).
    pub redirect_words: Vec<String>,
}

/// The whole line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellScript {
    pub commands: Vec<ParsedCommand>,
    /// The line's shape with every simple command written `_` (`_ && _ | _`), for hashing
    /// together with the commands themselves.
    pub shape: String,
    /// Why (part of) the line could not be parsed.
    pub error: Option<String>,
}

struct Walker<'a> {
    home: &'a str,
    cwd: String,
    options: ParserOptions,
    script: ShellScript,
    next_pipeline: usize,
    /// `(` operators the parser may still be handed for this line.
    parens_left: usize,
    /// Per script being walked: where a `(` is followed by a spaced `(` (`( (cmd) )`).
    spaced_parens: Vec<Vec<usize>>,
    /// The script being walked runs with elevated privileges (`sudo bash -c …`).
    privileged: bool,
}

/// Parses `line` run in `cwd`; `home` expands `~` and `$HOME`.
pub fn parse_script(line: &str, cwd: &str, home: &str) -> ShellScript {
    match crate::shell::plain::plain_words(line) {
        Some(words) => from_argv(&words, cwd, home),
        None => parse_with_parser(line, cwd, home),
    }
}

/// [`parse_script`] without the fast path for plain lines: always through the parser.
pub fn parse_with_parser(line: &str, cwd: &str, home: &str) -> ShellScript {
    let mut walker = Walker::new(cwd, home);
    let rendered = walker.script_text(line, 0, &mut Vec::new());
    walker.script.shape = rendered;
    walker.script
}

/// An already split command (no shell involved); a `bash -c` script in it is still parsed.
pub fn from_argv(argv: &[String], cwd: &str, home: &str) -> ShellScript {
    let mut walker = Walker::new(cwd, home);
    let mut parsed = ParsedCommand {
        argv: argv.to_vec(),
        cwd: cwd.to_owned(),
        stages: 1,
        ..ParsedCommand::default()
    };
    walker.next_pipeline = 1;
    let eff = effective(argv);
    parsed.privileged = eff.wrappers.iter().any(|w| raises_privileges(w));
    if let Some(script) = eff.inline_script {
        parsed.runs_inline_script = true;
        walker.privileged = parsed.privileged;
        walker.script_text(&script, 1, &mut parsed.substitutions);
    }
    walker.script.commands.push(parsed);
    walker.script.shape = "_".to_owned();
    walker.script
}

impl<'a> Walker<'a> {
    fn new(cwd: &str, home: &'a str) -> Self {
        Walker {
            home,
            cwd: cwd.to_owned(),
            options: ParserOptions::default(),
            script: ShellScript::default(),
            next_pipeline: 0,
            parens_left: MAX_PARENS_PER_LINE,
            spaced_parens: Vec::new(),
            privileged: false,
        }
    }
}

impl Walker<'_> {
    /// Parses and walks one script; returns its rendering. `subs` collects the indices
    /// of the commands it contains.
    fn script_text(&mut self, line: &str, depth: usize, subs: &mut Vec<usize>) -> String {
        if depth > MAX_DEPTH {
            self.fail("scripts nested too deeply to follow");
            return line.to_owned();
        }
        if bracket_depth(line) > MAX_BRACKETS {
            self.fail("brackets nested too deeply to follow");
            return line.to_owned();
        }
        if has_empty_heredoc_delimiter(line) {
            self.fail("a here-document has no body or an empty delimiter");
            return line.to_owned();
        }
        let options = self.options.tokenizer_options();
        let tokens = match guarded(|| brush_parser::uncached_tokenize_str(line, &options)) {
            Some(Ok(tokens)) => tokens,
            Some(Err(err)) => {
                self.fail(&format!("the shell line does not parse: {err}"));
                return line.to_owned();
            }
            None => {
                self.fail("the shell parser cannot read this line");
                return line.to_owned();
            }
        };
        let parens = tokens
            .iter()
            .filter(|t| matches!(t, brush_parser::Token::Operator(op, _) if op == "("))
            .count();
        if parens > MAX_PARENS || parens > self.parens_left {
            self.fail("too many subshell brackets to parse safely");
            return line.to_owned();
        }
        if has_oversized_fd(&tokens) {
            self.fail("a redirection names a file descriptor too large to be one");
            return line.to_owned();
        }
        self.parens_left -= parens;
        self.spaced_parens.push(spaced_parens(&tokens));
        let options = &self.options;
        let rendered = match guarded(|| brush_parser::parse_tokens(&tokens, options)) {
            Some(parsed) => self.walk_program(parsed, line, depth, subs),
            None => {
                self.fail("the shell parser cannot read this line");
                line.to_owned()
            }
        };
        self.spaced_parens.pop();
        rendered
    }

    fn walk_program(
        &mut self,
        parsed: Result<ast::Program, brush_parser::ParseError>,
        line: &str,
        depth: usize,
        subs: &mut Vec<usize>,
    ) -> String {
        match parsed {
            Ok(program) => {
                let first = self.script.commands.len();
                let parts: Vec<String> = program
                    .complete_commands
                    .iter()
                    .map(|list| self.compound_list(list, depth))
                    .collect();
                subs.extend(first..self.script.commands.len());
                parts.join("; ")
            }
            Err(err) => {
                self.fail(&format!("the shell line does not parse: {err}"));
                line.to_owned()
            }
        }
    }

    fn fail(&mut self, message: &str) {
        if self.script.error.is_none() {
            self.script.error = Some(message.to_owned());
        }
    }

    fn compound_list(&mut self, list: &CompoundList, depth: usize) -> String {
        let mut out = String::new();
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            out.push_str(&self.pipeline(&and_or.first, depth));
            for next in &and_or.additional {
                let (op, pipe) = match next {
                    AndOr::And(p) => (" && ", p),
                    AndOr::Or(p) => (" || ", p),
                };
                out.push_str(op);
                out.push_str(&self.pipeline(pipe, depth));
            }
            out.push_str(match sep {
                SeparatorOperator::Async => " & ",
                SeparatorOperator::Sequence => "; ",
            });
        }
        out.trim_end_matches([' ', ';']).to_owned()
    }

    fn pipeline(&mut self, pipeline: &Pipeline, depth: usize) -> String {
        let id = self.next_pipeline;
        self.next_pipeline += 1;
        let stages = pipeline.seq.len();
        let parts: Vec<String> = pipeline
            .seq
            .iter()
            .enumerate()
            .map(|(stage, cmd)| self.command(cmd, depth, (id, stage, stages)))
            .collect();
        let bang = if pipeline.bang { "! " } else { "" };
        format!("{bang}{}", parts.join(" | "))
    }

    fn command(&mut self, cmd: &Command, depth: usize, place: (usize, usize, usize)) -> String {
        match cmd {
            Command::Simple(simple) => self.simple(simple, depth, place),
            Command::Compound(compound, redirects) => {
                let saved = self.cwd.clone();
                let body = self.compound(compound, depth);
                if matches!(compound, CompoundCommand::Subshell(_)) {
                    self.cwd = saved;
                }
                let mut extra = Vec::new();
                for r in redirects.iter().flat_map(|l| l.0.iter()) {
                    extra.push(self.redirect(r, depth, &mut Vec::new(), &mut Vec::new()));
                }
                join_words(body, &extra)
            }
            Command::Function(def) => {
                self.compound(&def.body.0, depth);
                def.to_string()
            }
            Command::ExtendedTest(test, _) => test.to_string(),
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, depth: usize) -> String {
        match compound {
            CompoundCommand::Subshell(s) => format!("( {} )", self.compound_list(&s.list, depth)),
            CompoundCommand::BraceGroup(b) => {
                format!("{{ {}; }}", self.compound_list(&b.list, depth))
            }
            CompoundCommand::ForClause(f) => {
                self.compound_list(&f.body.list, depth);
                compound.to_string()
            }
            CompoundCommand::CaseClause(c) => {
                for item in &c.cases {
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, depth);
                    }
                }
                compound.to_string()
            }
            CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition, depth);
                self.compound_list(&i.then, depth);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.compound_list(c, depth);
                    }
                    self.compound_list(&e.body, depth);
                }
                compound.to_string()
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.compound_list(&w.0, depth);
                self.compound_list(&w.1.list, depth);
                compound.to_string()
            }
            CompoundCommand::ArithmeticForClause(f) => {
                self.compound_list(&f.body.list, depth);
                compound.to_string()
            }
            CompoundCommand::Coprocess(c) => {
                self.command(&c.body, depth, (usize::MAX, 0, 1));
                compound.to_string()
            }
            CompoundCommand::Arithmetic(a) => {
                // `( (cmd) )` is two subshells to bash, though the parser reads an arithmetic
                // command, and `$(…)` inside `((…))` runs: either way the text is judged
                // as commands.
                let spaced = self
                    .spaced_parens
                    .last()
                    .is_some_and(|at| at.contains(&a.loc.start.index));
                if spaced || a.expr.value.contains(['$', '`']) {
                    self.script_text(&a.expr.value, depth + 1, &mut Vec::new());
                }
                compound.to_string()
            }
        }
    }

    fn simple(
        &mut self,
        cmd: &SimpleCommand,
        depth: usize,
        place: (usize, usize, usize),
    ) -> String {
        let mut parsed = ParsedCommand {
            cwd: self.cwd.clone(),
            pipeline: place.0,
            stage: place.1,
            stages: place.2,
            ..ParsedCommand::default()
        };
        let mut rendered_redirects = Vec::new();
        let mut subs = Vec::new();
        let prefix = cmd.prefix.iter().flat_map(|p| p.0.iter()).map(Item::Other);
        let name = cmd.word_or_name.iter().map(Item::Name);
        let suffix = cmd
            .suffix
            .iter()
            .flat_map(|s| s.0.iter())
            .map(|item| match item {
                // After the command name, `X=1` is an argument (`env X=1 cmd`, `export X=1`).
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => Item::Name(word),
                other => Item::Other(other),
            });
        for item in prefix.chain(name).chain(suffix) {
            match item {
                Item::Name(word) | Item::Other(CommandPrefixOrSuffixItem::Word(word)) => {
                    let text = self.word(&word.value, depth, &mut subs, &mut parsed.dynamic);
                    parsed.argv.push(text);
                }
                Item::Other(CommandPrefixOrSuffixItem::AssignmentWord(_, word)) => {
                    let text = self.word(&word.value, depth, &mut subs, &mut parsed.dynamic);
                    parsed.assignments.push(text);
                }
                Item::Other(CommandPrefixOrSuffixItem::IoRedirect(r)) => {
                    let text = self.redirect(r, depth, &mut subs, &mut parsed.redirects);
                    rendered_redirects.push(text);
                }
                Item::Other(CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub)) => {
                    let body = self.substituted_list(&sub.list, depth, &mut subs);
                    parsed.argv.push(format!("{kind}( {body} )"));
                    parsed.dynamic = true;
                }
            }
        }
        let eff = effective(&parsed.argv);
        parsed.privileged = self.privileged || eff.wrappers.iter().any(|w| raises_privileges(w));
        if let Some(script) = &eff.inline_script {
            parsed.runs_inline_script = true;
            let outer = std::mem::replace(&mut self.privileged, parsed.privileged);
            self.script_text(script, depth + 1, &mut subs);
            self.privileged = outer;
        }
        self.follow_cd(eff.argv);
        parsed.substitutions = subs;
        parsed.redirect_words = rendered_redirects;
        self.script.commands.push(parsed);
        "_".to_owned()
    }

    /// Walks a process substitution's list, recording its commands in `subs`.
    fn substituted_list(
        &mut self,
        list: &CompoundList,
        depth: usize,
        subs: &mut Vec<usize>,
    ) -> String {
        let first = self.script.commands.len();
        let saved = self.cwd.clone();
        let body = self.compound_list(list, depth);
        self.cwd = saved;
        subs.extend(first..self.script.commands.len());
        body
    }

    fn word(
        &mut self,
        raw: &str,
        depth: usize,
        subs: &mut Vec<usize>,
        dynamic: &mut bool,
    ) -> String {
        let env = WordEnv {
            home: self.home,
            cwd: &self.cwd,
        };
        let expanded = expand(raw, &env, &self.options);
        *dynamic |= expanded.dynamic;
        if expanded.unreadable {
            self.fail("a word is too complex to read safely");
        }
        for script in &expanded.substitutions {
            let saved = self.cwd.clone();
            self.script_text(script, depth + 1, subs);
            self.cwd = saved;
        }
        expanded.text
    }

    fn redirect(
        &mut self,
        r: &IoRedirect,
        depth: usize,
        subs: &mut Vec<usize>,
        out: &mut Vec<Redirect>,
    ) -> String {
        let mut dynamic = false;
        match r {
            IoRedirect::File(fd, kind, IoFileRedirectTarget::Filename(word)) => {
                let target = self.word(&word.value, depth, subs, &mut dynamic);
                let write = !matches!(kind, IoFileRedirectKind::Read);
                out.push(Redirect {
                    path: normalize(&target, &self.cwd, self.home),
                    write,
                });
                let fd = fd.map(|f| f.to_string()).unwrap_or_default();
                format!("{fd}{kind}{}", quote(&target))
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                let body = self.substituted_list(&sub.list, depth, subs);
                format!("<( {body} )")
            }
            IoRedirect::OutputAndError(word, append) => {
                let target = self.word(&word.value, depth, subs, &mut dynamic);
                out.push(Redirect {
                    path: normalize(&target, &self.cwd, self.home),
                    write: true,
                });
                format!("{}{}", if *append { "&>>" } else { "&>" }, quote(&target))
            }
            IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    match heredoc_substitutions(&doc.doc.value, &self.options) {
                        Some(scripts) => {
                            for script in scripts {
                                self.script_text(&script, depth + 1, subs);
                            }
                        }
                        None => self.fail("a here-document is too complex to read safely"),
                    }
                }
                r.to_string()
            }
            IoRedirect::HereString(_, word) => {
                let text = self.word(&word.value, depth, subs, &mut dynamic);
                format!("<<<{}", quote(&text))
            }
            IoRedirect::File(..) => r.to_string(),
        }
    }

    fn follow_cd(&mut self, argv: &[String]) {
        let Some(first) = argv.first() else { return };
        if program_name(first) != "cd" {
            return;
        }
        let target = argv
            .iter()
            .skip(1)
            .find(|a| !a.starts_with('-') || a.as_str() == "-");
        self.cwd = match target {
            None => self.home.to_owned(),
            Some(t) => normalize(t, &self.cwd, self.home),
        };
    }
}

/// A word of a simple command: its name, or a prefix/suffix item.
enum Item<'a> {
    Name(&'a ast::Word),
    Other(&'a CommandPrefixOrSuffixItem),
}

fn join_words(body: String, extra: &[String]) -> String {
    if extra.is_empty() {
        body
    } else {
        format!("{body} {}", extra.join(" "))
    }
}
