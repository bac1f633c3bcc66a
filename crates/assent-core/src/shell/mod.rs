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

use crate::shell::wrappers::{effective, program_name, raises_privileges, xargs_commands};

/// Deepest nesting of scripts inside scripts (`$(…)`, `sh -c`) that is followed.
const MAX_DEPTH: usize = 8;
/// Deepest bracket nesting handed to the parser (it recurses).
const MAX_BRACKETS: usize = 64;
/// Most `(` operators (subshells, groups, function parens) in one script handed to the
/// parser, and in one line overall. The parser backtracks on each unclosed `(`, so its time
/// grows exponentially with their number (found by fuzzing); these bounds keep a script's
/// parse, and a line's, short.
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
    /// The text on its stdin is known (an `echo`/`printf` before it in a pipe, a
    /// here-string): what `xargs` runs with it is listed as a command of its own.
    pub stdin_known: bool,
    /// Its stdin is a pipe from a command that lists paths under places it names, which
    /// the policy judges (`find . -name x`, `git ls-files`, `grep -l`): `xargs grep` after
    /// it reads those files.
    pub stdin_paths: bool,
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
    /// Some context on the line reads a value again as code (arithmetic, `${!x}`, a
    /// subscript, `declare`, `printf -v`, `[[ -v ]]`…).
    reevaluates: bool,
    /// Some quoted text on the line holds `$(…)` or a backtick.
    literal_code: bool,
    /// It holds text the reader cannot know: a command substitution's output (but for
    /// commands that print only a number) or a value `read` at run time.
    unknown_data: bool,
    /// The text a here-string or here-document of the command being walked feeds its stdin.
    stdin_text: Option<String>,
    /// The literal text the last `echo`/`printf` wrote into a pipe: (pipeline, stage, text).
    piped_text: Option<(usize, usize, String)>,
    /// The last command that writes a list of paths it was given the places of into a
    /// pipe (`find .`, `git ls-files`): (pipeline, stage).
    piped_paths: Option<(usize, usize)>,
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
    walker.finish()
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
    walker.finish()
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
            reevaluates: false,
            literal_code: false,
            unknown_data: false,
            stdin_text: None,
            piped_text: None,
            piped_paths: None,
        }
    }

    /// The walked line. Quoted text that holds a command, read again as code by some
    /// context of the same line (`x='a[$(rm -rf ~)]'; echo $((x))`), runs a command that no
    /// word shows: the line cannot be fully checked.
    ///
    /// Text the line does not know (a command's output, a value `read` from a file) read
    /// again as code is the same hole with the command in a file written before:
    /// `echo $(( $(cat n.txt) + 1 ))` runs `a[$(…)]` if n.txt holds it.
    fn finish(mut self) -> ShellScript {
        if self.reevaluates && self.literal_code {
            self.fail(
                "quoted text holds a command and the line reads a value again as code \
                 (arithmetic, an indirection, a subscript or a declaration)",
            );
        } else if self.reevaluates && self.unknown_data {
            self.fail(
                "the line reads a command's output or a value read at run time again as code \
                 (arithmetic, an indirection, a subscript or a declaration), which runs any \
                 `$(…)` that text holds",
            );
        }
        self.script
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
                let saved = self.cwd.clone();
                self.compound(&def.body.0, depth);
                for r in def.body.1.iter().flat_map(|l| l.0.iter()) {
                    self.redirect(r, depth, &mut Vec::new(), &mut Vec::new());
                }
                self.cwd = saved;
                def.to_string()
            }
            Command::ExtendedTest(test, redirects) => {
                self.extended_test(&test.expr, depth, place, redirects.as_ref());
                test.to_string()
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, depth: usize) -> String {
        match compound {
            CompoundCommand::Subshell(s) => format!("( {} )", self.compound_list(&s.list, depth)),
            CompoundCommand::BraceGroup(b) => {
                format!("{{ {}; }}", self.compound_list(&b.list, depth))
            }
            CompoundCommand::ForClause(f) => {
                let mut subs = Vec::new();
                let mut dynamic = false;
                for value in f.values.iter().flatten() {
                    self.word(&value.value, depth, &mut subs, &mut dynamic);
                }
                self.compound_list(&f.body.list, depth);
                compound.to_string()
            }
            CompoundCommand::CaseClause(c) => {
                let mut subs = Vec::new();
                let mut dynamic = false;
                self.word(&c.value.value, depth, &mut subs, &mut dynamic);
                for item in &c.cases {
                    for pattern in &item.patterns {
                        self.word(&pattern.value, depth, &mut subs, &mut dynamic);
                    }
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
                for expr in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value, depth);
                }
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
                if spaced {
                    self.script_text(&a.expr.value, depth + 1, &mut Vec::new());
                } else {
                    self.arithmetic(&a.expr.value, depth);
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
        self.stdin_text = None;
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
        let stdin_text = self.stdin_text.take();
        let piped = self
            .piped_text
            .take()
            .filter(|(pipeline, stage, _)| *pipeline == place.0 && *stage + 1 == place.1)
            .map(|(_, _, text)| text);
        // `bash <<< 'rm -rf ~'`, `sh <<EOF … EOF`, `echo 'rm -rf ~' | sh`, `. /dev/stdin`:
        // the shell runs the text fed to its stdin, which is judged as a script.
        let fed = stdin_text.or(piped);
        parsed.stdin_paths = self
            .piped_paths
            .take()
            .is_some_and(|(pipeline, stage)| pipeline == place.0 && stage + 1 == place.1);
        let script = eff.inline_script.clone().or_else(|| {
            reads_script_from_stdin(eff.argv)
                .then(|| fed.clone())
                .flatten()
        });
        // `echo / | xargs chmod -R 777`: what xargs runs, with the words it is fed, is a
        // command of its own.
        parsed.stdin_known = fed.is_some();
        let fed_to_xargs = match (&fed, eff.args_from_stdin) {
            (Some(text), true) => xargs_commands(&parsed.argv, eff.argv, text),
            _ => Vec::new(),
        };
        if let Some(script) = &script {
            parsed.runs_inline_script = true;
            let outer = std::mem::replace(&mut self.privileged, parsed.privileged);
            self.script_text(script, depth + 1, &mut subs);
            self.privileged = outer;
        }
        if let Some((first, args)) = eff.argv.split_first() {
            let program = program_name(first);
            self.reevaluates |= reevaluates_values(program, args);
            self.unknown_data |= matches!(program, "read" | "mapfile" | "readarray");
            if !parsed.dynamic && lists_paths(program, args) {
                self.piped_paths = Some((place.0, place.1));
            }
            if !parsed.dynamic && matches!(program, "echo" | "printf") {
                if let Some(text) = echoed_text(program, args) {
                    self.piped_text = Some((place.0, place.1, text));
                }
            }
        }
        self.follow_cd(eff.argv);
        parsed.substitutions = subs;
        parsed.redirect_words = rendered_redirects;
        // Built before `parsed` moves into the script: they copy its place.
        let derived: Vec<ParsedCommand> = fed_to_xargs
            .into_iter()
            .map(|argv| ParsedCommand {
                argv,
                cwd: parsed.cwd.clone(),
                pipeline: parsed.pipeline,
                stage: parsed.stage,
                stages: parsed.stages,
                privileged: parsed.privileged,
                ..ParsedCommand::default()
            })
            .collect();
        self.script.commands.push(parsed);
        self.script.commands.extend(derived);
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

    /// An arithmetic expression (`(( … ))`, `for (( … ))`): its substitutions run before it
    /// is computed, and it reads variables' values again as code.
    fn arithmetic(&mut self, text: &str, depth: usize) {
        self.reevaluates = true;
        let env = WordEnv {
            home: self.home,
            cwd: &self.cwd,
        };
        let mut found = word::ExpandedWord::default();
        word::inner_substitutions(text, &env, &mut found);
        self.literal_code |= found.literal_code;
        if found.unreadable {
            self.fail("an arithmetic expression is too complex to read safely");
        }
        for script in &found.substitutions {
            self.unknown_data |= !numeric_output(script);
            let saved = self.cwd.clone();
            self.script_text(script, depth + 1, &mut Vec::new());
            self.cwd = saved;
        }
    }

    /// `[[ … ]]`: its operands are expanded (their substitutions run), the arithmetic and
    /// `-v` tests read values again as code. It is recorded as the command `[[`.
    fn extended_test(
        &mut self,
        expr: &ast::ExtendedTestExpr,
        depth: usize,
        place: (usize, usize, usize),
        redirects: Option<&ast::RedirectList>,
    ) {
        let mut parsed = ParsedCommand {
            argv: vec!["[[".to_owned()],
            cwd: self.cwd.clone(),
            pipeline: place.0,
            stage: place.1,
            stages: place.2,
            ..ParsedCommand::default()
        };
        let mut subs = Vec::new();
        let mut pending = vec![expr];
        while let Some(e) = pending.pop() {
            match e {
                ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                    pending.push(b);
                    pending.push(a);
                }
                ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                    pending.push(a);
                }
                ast::ExtendedTestExpr::UnaryTest(predicate, word) => {
                    self.reevaluates |= matches!(
                        predicate,
                        ast::UnaryPredicate::ShellVariableIsSetAndAssigned
                            | ast::UnaryPredicate::ShellVariableIsSetAndNameRef
                    );
                    parsed.argv.push(predicate.to_string());
                    let text = self.word(&word.value, depth, &mut subs, &mut parsed.dynamic);
                    parsed.argv.push(text);
                }
                ast::ExtendedTestExpr::BinaryTest(predicate, left, right) => {
                    self.reevaluates |= predicate.to_string().starts_with("-");
                    let text = self.word(&left.value, depth, &mut subs, &mut parsed.dynamic);
                    parsed.argv.push(text);
                    parsed.argv.push(predicate.to_string());
                    let text = self.word(&right.value, depth, &mut subs, &mut parsed.dynamic);
                    parsed.argv.push(text);
                }
            }
        }
        parsed.argv.push("]]".to_owned());
        for r in redirects.iter().flat_map(|l| l.0.iter()) {
            let text = self.redirect(r, depth, &mut subs, &mut parsed.redirects);
            parsed.redirect_words.push(text);
        }
        self.stdin_text = None;
        parsed.substitutions = subs;
        self.script.commands.push(parsed);
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
        self.reevaluates |= expanded.reevaluates;
        self.literal_code |= expanded.literal_code;
        if expanded.unreadable {
            self.fail("a word is too complex to read safely");
        }
        for script in &expanded.substitutions {
            self.unknown_data |= !numeric_output(script);
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
            IoRedirect::HereDocument(fd, doc) => {
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
                if fd.is_none_or(|fd| fd == 0) {
                    self.stdin_text = Some(doc.doc.value.clone());
                }
                r.to_string()
            }
            IoRedirect::HereString(fd, word) => {
                let text = self.word(&word.value, depth, subs, &mut dynamic);
                if fd.is_none_or(|fd| fd == 0) {
                    self.stdin_text = Some(text.clone());
                }
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

/// Whether `argv` (wrappers seen through) is a shell that reads its script from stdin: no
/// script file, only options (`bash`, `sh -s`, `bash -o pipefail -x`), or `source`/`.` of
/// `/dev/stdin`.
fn reads_script_from_stdin(argv: &[String]) -> bool {
    let Some((first, args)) = argv.split_first() else {
        return false;
    };
    let program = program_name(first);
    if matches!(program, "source" | ".") {
        return args
            .first()
            .is_some_and(|a| a == "/dev/stdin" || a == "/proc/self/fd/0" || a == "-");
    }
    if !crate::shell::wrappers::is_shell(program) {
        return false;
    }
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.as_str() {
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => {
                words.next();
            }
            "-s" | "--" => return true,
            a if a.starts_with(['-', '+']) => {}
            _ => return false,
        }
    }
    true
}

/// Builtins that read a value again as code: a name they are given may be an array element
/// whose subscript is computed as arithmetic (`printf -v 'a[$(cmd)]'`, `read`, `unset`,
/// `declare`, `test -v`), or their arguments are arithmetic (`let`, `declare -i`).
fn reevaluates_values(program: &str, args: &[String]) -> bool {
    match program {
        "let" | "declare" | "typeset" | "local" | "readonly" | "export" | "read" | "mapfile"
        | "readarray" | "unset" | "printf" | "wait" | "shift" | "return" | "exit" => true,
        // `test`/`[` compare integers without computing them (measured with bash 5.2);
        // `-v`/`-R` read a name, subscript included.
        "test" | "[" => args.iter().any(|a| matches!(a.as_str(), "-v" | "-R")),
        _ => false,
    }
}

/// Whether the command prints paths found under places its own arguments name (judged as
/// its reads): `find`, `fd`, `ls`, `git ls-files`, `git diff --name-only`, `grep -l`.
fn lists_paths(program: &str, args: &[String]) -> bool {
    let flag = |f: &str| args.iter().any(|a| a == f);
    let short = |c: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    match program {
        "find" | "fd" | "fdfind" | "ls" => true,
        "grep" | "rg" | "egrep" => {
            short('l') || short('L') || flag("--files") || flag("--files-with-matches")
        }
        "git" => match args.first().map(String::as_str) {
            Some("ls-files") => true,
            Some("diff") => flag("--name-only"),
            Some("grep") => flag("-l") || flag("--name-only"),
            _ => false,
        },
        _ => false,
    }
}

/// Whether a command substitution's script prints only a number (`wc -l < f`, `nproc`,
/// `date +%s`, `id -u`, `git rev-list --count`, `seq`), so that arithmetic reading its output
/// cannot meet code in it.
fn numeric_output(script: &str) -> bool {
    if script.contains([';', '&', '\n', '`', '$', '(']) {
        return false;
    }
    let last = script.rsplit('|').next().unwrap_or_default();
    let last = last.split('<').next().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    match words.as_slice() {
        ["wc", flags @ ..] => flags.iter().all(|f| {
            f.len() > 1 && f.starts_with('-') && f[1..].chars().all(|c| "lcwm".contains(c))
        }),
        ["nproc"] | ["nproc", "--all"] => true,
        ["date", format] => {
            format.starts_with("+%")
                && format[1..]
                    .chars()
                    .all(|c| c == '%' || c.is_ascii_alphanumeric())
        }
        ["id", flag] => matches!(*flag, "-u" | "-g" | "-ur" | "-gr"),
        ["git", "rev-list", "--count", ..] => true,
        ["seq", rest @ ..] => rest.iter().all(|w| w.parse::<i64>().is_ok()),
        _ => false,
    }
}

/// The text `echo ARGS` or `printf TEXT` writes, when it is plain (no `echo -e`, no `%` in a
/// format): what a shell after it in a pipe would run.
fn echoed_text(program: &str, args: &[String]) -> Option<String> {
    match program {
        "echo" => {
            let words: Vec<&String> = args
                .iter()
                .skip_while(|a| a.as_str() == "-n" || a.as_str() == "-E")
                .collect();
            if args.iter().any(|a| a.starts_with("-e")) {
                return None;
            }
            Some(
                words
                    .iter()
                    .map(|w| w.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => match args {
            [format] if !format.contains(['%', '\\']) => Some(format.clone()),
            _ => None,
        },
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
