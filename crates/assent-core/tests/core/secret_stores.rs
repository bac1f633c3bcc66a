//! Secret stores beyond dotfiles (issue 41, section 2): browser profiles, GPG private keys,
//! desktop keyrings and keychains, password stores, and a secret directory archived or
//! encoded in one go — blocked as reading `~/.ssh` is. The near-misses beside them (listing
//! keys, a public key, an archive of the repository) are everyday work and stay auto.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{Decision, Policy};

use Decision::{Auto, Block};

#[test]
fn secret_stores_beyond_dotfiles_are_blocked() {
    let secret_path =
        |name, line: &str, why| row(name, shell(line), Block, "block.secret_path", why);
    let secret_store =
        |name, line: &str, why| row(name, shell(line), Block, "block.secret_store", why);
    check(
        vec![
            secret_path(
                "Chrome's cookies",
                "cat ~/.config/google-chrome/Default/Cookies",
                "a browser's cookie jar logs in as the user on every site",
            ),
            secret_path(
                "Firefox's saved logins",
                "sqlite3 ~/.mozilla/firefox/k3y.default-release/logins.json .dump",
                "saved logins are passwords",
            ),
            secret_path(
                "a Brave profile copied away",
                "cp -r ~/.config/BraveSoftware /tmp/b",
                "copying the profile is reading it",
            ),
            secret_path(
                "Chromium in a snap",
                "ls ~/snap/chromium/common/chromium/Default",
                "the snap's profile is the same store",
            ),
            secret_path(
                "Edge on macOS",
                "cat ~/Library/Application\\ Support/Microsoft\\ Edge/Default/Cookies",
                "macOS keeps the same profile under Application Support",
            ),
            secret_path(
                "GPG's private key directory",
                "ls ~/.gnupg/private-keys-v1.d",
                "the private keys themselves",
            ),
            secret_path(
                "a key directory elsewhere",
                "cat /srv/ci/gnupg/private-keys-v1.d/ABCD.key",
                "GNUPGHOME can be anywhere; the key directory's name says what it holds",
            ),
            secret_path(
                "the desktop keyring",
                "cat ~/.local/share/keyrings/login.keyring",
                "GNOME's keyring holds the user's stored passwords",
            ),
            secret_path(
                "the system keychain",
                "cp /Library/Keychains/System.keychain /tmp/k",
                "macOS's system keychain holds machine credentials",
            ),
            secret_path(
                "a KeePass database",
                "cp ~/Documents/passwords.kdbx /tmp/p",
                "a password database, wherever it is kept",
            ),
            secret_path(
                "the password store archived",
                "tar czf /tmp/p.tgz ~/.password-store",
                "packing a secret directory reads every file in it",
            ),
            secret_path(
                "GPG keys zipped",
                "zip -r keys.zip ~/.gnupg",
                "zip reads the key directory as tar does",
            ),
            secret_path(
                "a home archived member by member",
                "tar -C ~ -czf /tmp/h.tgz .ssh",
                "`-C ~` makes `.ssh` the home's key directory",
            ),
            secret_path(
                "a whole home archived",
                "tar czf /tmp/home.tgz /home/dev",
                "a home holds every secret file of its user",
            ),
            secret_path(
                "a secret file encoded",
                "base64 -w0 ~/.password-store/github.gpg",
                "encoding a secret is reading it",
            ),
            secret_store(
                "a private key exported",
                "gpg --armor --export-secret-keys me@example.org",
                "the export prints the private key",
            ),
            secret_store(
                "an abbreviated export",
                "gpg --export-secret-sub me@example.org",
                "GPG accepts any unambiguous abbreviation of its options",
            ),
            secret_store(
                "the KDE wallet",
                "kwallet-query -r github kdewallet",
                "the wallet prints a stored password",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn near_misses_of_secret_stores_stay_auto() {
    let auto = |name, line: &str, rule, why| row(name, shell(line), Auto, rule, why);
    check(
        vec![
            auto(
                "GPG's key listing",
                "gpg --list-secret-keys --keyid-format long",
                "auto.read",
                "a listing shows key ids, never key material",
            ),
            auto(
                "a public key exported",
                "gpg --armor --export me@example.org",
                "auto.read",
                "a public key is meant to be shared",
            ),
            auto(
                "notes about browser profiles",
                "cat docs/browser-profiles.md",
                "auto.read",
                "a file in the repository that talks about profiles holds none",
            ),
            auto(
                "a key's fingerprint",
                "gpg --fingerprint me@example.org",
                "auto.read",
                "a fingerprint identifies a key and gives nothing of it away",
            ),
        ],
        &Policy::default(),
    );
}
