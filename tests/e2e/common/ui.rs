//! One desk, two shells: the same UI stories run in the window (tauri-driver + WebKitWebDriver
//! on the real app, which embeds its service or signs in to one with a token) and in Chromium
//! on the web desk (`/desk/` of a real service on loopback, signed in with a passkey from an
//! invite). A story takes a [`Ui`]: a WebDriver client on the desk, the agent's client and a
//! second person's (`reviewer`, every role) to check and decide with.

use std::path::PathBuf;

use assent_client::Client;
use assent_core::ALL_ROLES;

use super::browser::{invite, Browser};
use super::driver::{element, session, start_driver, Driver, WAIT};
use super::{eventually, x_window_titled, Desk, TestService};

/// The service's own person (`assent_server`'s owner), whom a desk of its own signs in as.
const OWNER: &str = "owner";

/// Where a suite shows the desk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shell {
    /// The Tauri window of the real app.
    Window,
    /// The web desk in Chromium, signed in with a passkey.
    Browser,
}

/// What keeps the desk up until the story ends.
enum Held {
    Window {
        _driver: Driver,
        _desk: Desk,
    },
    Browser {
        browser: Browser,
        // Boxed: a service is large beside the window's two handles.
        _service: Option<Box<TestService>>,
    },
}

pub struct Ui {
    /// WebDriver on the desk's page.
    pub client: fantoccini::Client,
    /// The agent's (requester) client of the desk's service.
    pub requester: Client,
    /// A second person of the service with every role (or its owner, on a service the story
    /// runs itself).
    pub reviewer: Client,
    data_dir: PathBuf,
    url: String,
    held: Held,
}

impl Ui {
    /// A desk of its own: in the window, the app's embedded service (the window signs in as
    /// its owner); in the browser, a service on loopback whose `owner` signs in with a passkey.
    /// `policy_toml` replaces the default policy.
    pub async fn own(shell: Shell, policy_toml: Option<&str>) -> Ui {
        match shell {
            Shell::Window => {
                let desk = policy_toml.map_or_else(Desk::new, Desk::with_policy);
                let driver = start_driver(&desk).await;
                let client = session().await;
                let (requester, reviewer) = desk.wait_ready(WAIT).await;
                Ui {
                    client,
                    requester,
                    reviewer,
                    data_dir: desk.data_dir(),
                    url: desk.url(),
                    held: Held::Window {
                        _driver: driver,
                        _desk: desk,
                    },
                }
            }
            Shell::Browser => {
                let policy = policy_toml.map_or_else(assent_core::Policy::default, |text| {
                    assent_core::Policy::from_toml(text).expect("the story's policy")
                });
                let service = TestService::with_policy(policy).await;
                let reviewer = service.client(&service.person("reviewer", &ALL_ROLES).await);
                let browser = signed_in_browser(&service, OWNER).await;
                Ui {
                    client: browser.client.clone(),
                    requester: service.requester(),
                    reviewer,
                    data_dir: service.dir.path().to_owned(),
                    url: service.url(),
                    held: Held::Browser {
                        browser,
                        _service: Some(Box::new(service)),
                    },
                }
            }
        }
    }

    /// A desk on `service` (which the story keeps), signed in as `person`: the window with
    /// their `token` (`ASSENT_URL` + `ASSENT_TOKEN`), the browser with a passkey enrolled from
    /// an invite. `reviewer` is the service's owner.
    pub async fn on(shell: Shell, service: &TestService, person: &str, token: &str) -> Ui {
        let (client, held) = match shell {
            Shell::Window => {
                let desk = Desk::signed_in(&service.url(), token);
                let driver = start_driver(&desk).await;
                (
                    session().await,
                    Held::Window {
                        _driver: driver,
                        _desk: desk,
                    },
                )
            }
            Shell::Browser => {
                let browser = signed_in_browser(service, person).await;
                (
                    browser.client.clone(),
                    Held::Browser {
                        browser,
                        _service: None,
                    },
                )
            }
        };
        Ui {
            client,
            requester: service.requester(),
            reviewer: service.approver(),
            data_dir: service.dir.path().to_owned(),
            url: service.url(),
            held,
        }
    }

    pub fn shell(&self) -> Shell {
        match self.held {
            Held::Window { .. } => Shell::Window,
            Held::Browser { .. } => Shell::Browser,
        }
    }

    /// The browser, when the desk is the web desk.
    pub fn browser(&self) -> Option<&Browser> {
        match &self.held {
            Held::Browser { browser, .. } => Some(browser),
            Held::Window { .. } => None,
        }
    }

    /// The data dir of the desk's service (its token files, database and policy file).
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone()
    }

    /// The service's own URL (where agents reach it).
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// A screenshot into `docs/screenshots/` (`ASSENT_SCREENSHOTS`) of the window's screen.
    /// The web desk's pictures are taken by the browser suite's own stories
    /// (`web-desk-phone-*.png`, `web-desk-desktop-*.png`), so here the browser takes none.
    pub fn screenshot(&self, name: &str) {
        if self.shell() == Shell::Window {
            super::screenshot(name);
        }
    }

    /// Whether the desk is still on screen: the window titled "Assent", or the desk's page.
    pub async fn shows_the_desk(&self) -> bool {
        match self.shell() {
            Shell::Window => x_window_titled("Assent"),
            Shell::Browser => self
                .client
                .find(fantoccini::Locator::Css("header.top"))
                .await
                .is_ok(),
        }
    }
}

/// Chromium on `service`'s invite for `person`: the passkey enrolled, the desk signed in.
async fn signed_in_browser(service: &TestService, person: &str) -> Browser {
    let browser = Browser::start().await;
    let page = &browser.client;
    let link = invite(service.dir.path(), service.port, person).await;
    page.goto(&link).await.expect("open the invite");
    element(page, "[data-testid=enrol-passkey]")
        .await
        .click()
        .await
        .expect("enrol a passkey");
    let wanted = format!("Signed in as {person}");
    eventually(&format!("the web desk to sign in {person}"), WAIT, || async {
        let me = page
            .execute(
                "const me = document.querySelector('[data-testid=me]'); return me ? me.textContent : ''",
                Vec::new(),
            )
            .await
            .ok()?;
        me.as_str()
            .is_some_and(|text| text.starts_with(&wanted))
            .then_some(())
    })
    .await;
    browser
}
