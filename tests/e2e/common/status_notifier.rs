//! A tray host for tests: owns `org.kde.StatusNotifierWatcher` on the (private) session bus,
//! records each `RegisterStatusNotifierItem`, and reads a registered item the way a panel
//! does: its `org.kde.StatusNotifierItem` properties and its `com.canonical.dbusmenu` menu,
//! whose items it can click.

use std::collections::HashMap;

use serde::Deserialize;
use tokio::sync::mpsc;
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Type, Value};

pub const WATCHER_NAME: &str = "org.kde.StatusNotifierWatcher";
const WATCHER_PATH: &str = "/StatusNotifierWatcher";
const ITEM_INTERFACE: &str = "org.kde.StatusNotifierItem";
const MENU_INTERFACE: &str = "com.canonical.dbusmenu";

/// Where a registered item lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    /// The unique bus name of the registering connection.
    pub bus_name: String,
    /// The item's object path.
    pub path: String,
}

struct Watcher {
    registered: mpsc::UnboundedSender<Registered>,
    items: Vec<String>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    async fn register_status_notifier_item(
        &mut self,
        service: String,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) {
        let sender = header.sender().map(ToString::to_string).unwrap_or_default();
        // The spec allows a bus name or an object path (then the sender is the bus name).
        let (bus_name, path) = if service.starts_with('/') {
            (sender, service)
        } else {
            (service, "/StatusNotifierItem".to_owned())
        };
        let full = format!("{bus_name}{path}");
        self.items.push(full.clone());
        let _ = Watcher::status_notifier_item_registered(&emitter, &full).await;
        let _ = self.registered.send(Registered { bus_name, path });
    }

    fn register_status_notifier_host(&self, _service: String) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.clone()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(signal)]
    async fn status_notifier_item_registered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn status_notifier_host_registered(emitter: &SignalEmitter<'_>) -> zbus::Result<()>;
}

/// The running watcher (a panel's side of the tray).
pub struct TrayHost {
    connection: zbus::Connection,
    registered: mpsc::UnboundedReceiver<Registered>,
}

/// One node of a dbusmenu layout.
#[derive(Debug, Clone, Deserialize, Type)]
struct RawNode {
    id: i32,
    properties: HashMap<String, OwnedValue>,
    children: Vec<OwnedValue>,
}

/// A menu entry as a panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuNode {
    pub id: i32,
    /// The label without GTK's mnemonic underscores; empty for a separator.
    pub label: String,
    pub enabled: bool,
    pub separator: bool,
    pub children: Vec<MenuNode>,
}

impl MenuNode {
    /// The first entry (depth first) whose label is `label`.
    pub fn find(&self, label: &str) -> Option<&MenuNode> {
        if self.label == label {
            return Some(self);
        }
        self.children.iter().find_map(|child| child.find(label))
    }

    /// The labels of the direct children, in order.
    pub fn labels(&self) -> Vec<String> {
        self.children.iter().map(|c| c.label.clone()).collect()
    }
}

fn string_of(value: Option<&OwnedValue>) -> Option<String> {
    value.and_then(|v| String::try_from(v.try_clone().ok()?).ok())
}

fn node_of(raw: RawNode) -> MenuNode {
    let label = string_of(raw.properties.get("label"))
        .unwrap_or_default()
        .replace("__", "\u{0}")
        .replace('_', "")
        .replace('\u{0}', "_");
    let enabled = raw
        .properties
        .get("enabled")
        .and_then(|v| bool::try_from(v).ok())
        .unwrap_or(true);
    let separator = string_of(raw.properties.get("type")).as_deref() == Some("separator");
    let children = raw
        .children
        .into_iter()
        .filter_map(|child| {
            let value: Value<'_> = child.into();
            let value = match value {
                Value::Value(inner) => *inner,
                other => other,
            };
            let structure = zbus::zvariant::Structure::try_from(value).ok()?;
            let mut fields = structure.into_fields().into_iter();
            let id = i32::try_from(fields.next()?).ok()?;
            let properties =
                HashMap::<String, OwnedValue>::try_from(fields.next()?.try_to_owned().ok()?)
                    .ok()?;
            let children = Vec::<OwnedValue>::try_from(fields.next()?.try_to_owned().ok()?).ok()?;
            Some(node_of(RawNode {
                id,
                properties,
                children,
            }))
        })
        .collect();
    MenuNode {
        id: raw.id,
        label,
        enabled,
        separator,
        children,
    }
}

impl TrayHost {
    /// Owns the watcher name before returning (start it before the app).
    pub async fn start() -> TrayHost {
        let (tx, registered) = mpsc::unbounded_channel();
        let watcher = Watcher {
            registered: tx,
            items: Vec::new(),
        };
        let connection = zbus::connection::Builder::session()
            .expect("a session bus (run under dbus-run-session)")
            .serve_at(WATCHER_PATH, watcher)
            .expect("serve")
            .name(WATCHER_NAME)
            .expect("name")
            .build()
            .await
            .expect("own org.kde.StatusNotifierWatcher");
        TrayHost {
            connection,
            registered,
        }
    }

    /// The next item that registers, waiting at most `timeout`.
    pub async fn registered(&mut self, timeout: std::time::Duration) -> Option<Registered> {
        tokio::time::timeout(timeout, self.registered.recv())
            .await
            .ok()
            .flatten()
    }

    async fn properties(&self, item: &Registered) -> zbus::fdo::PropertiesProxy<'static> {
        zbus::fdo::PropertiesProxy::builder(&self.connection)
            .destination(item.bus_name.clone())
            .expect("bus name")
            .path(item.path.clone())
            .expect("object path")
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .expect("a properties proxy")
    }

    /// Every `org.kde.StatusNotifierItem` property of the item, read afresh.
    pub async fn item_properties(&self, item: &Registered) -> HashMap<String, OwnedValue> {
        let interface = zbus::names::InterfaceName::from_static_str_unchecked(ITEM_INTERFACE);
        self.properties(item)
            .await
            .get_all(interface)
            .await
            .expect("GetAll on the StatusNotifierItem")
    }

    /// A string property of the item ("" when absent).
    pub async fn item_string(&self, item: &Registered, name: &str) -> String {
        string_of(self.item_properties(item).await.get(name)).unwrap_or_default()
    }

    async fn menu_path(&self, item: &Registered) -> String {
        let properties = self.item_properties(item).await;
        let menu = properties.get("Menu").expect("the item exports a Menu");
        OwnedObjectPath::try_from(menu.try_clone().expect("clone"))
            .expect("Menu is an object path")
            .to_string()
    }

    /// The whole menu (`GetLayout(0, -1, [])`).
    pub async fn menu(&self, item: &Registered) -> MenuNode {
        let path = self.menu_path(item).await;
        let reply = self
            .connection
            .call_method(
                Some(item.bus_name.as_str()),
                path.as_str(),
                Some(MENU_INTERFACE),
                "GetLayout",
                &(0i32, -1i32, Vec::<String>::new()),
            )
            .await
            .expect("GetLayout on the dbusmenu");
        let (_revision, root): (u32, RawNode) =
            reply.body().deserialize().expect("a dbusmenu layout");
        node_of(root)
    }

    /// Clicks the entry `id`, as a panel does. Fails if the menu was rebuilt meanwhile
    /// (the ids of a dbusmenu change with each new layout).
    pub async fn click(&self, item: &Registered, id: i32) -> zbus::Result<()> {
        let path = self.menu_path(item).await;
        let timestamp = 0u32;
        self.connection
            .call_method(
                Some(item.bus_name.as_str()),
                path.as_str(),
                Some(MENU_INTERFACE),
                "Event",
                &(id, "clicked", Value::from(0i32), timestamp),
            )
            .await
            .map(drop)
    }

    /// Clicks the entry labelled `label` in the current layout, reading the layout again if
    /// it changed between reading and clicking.
    pub async fn click_label(&self, item: &Registered, label: &str) {
        let mut last = None;
        for _ in 0..20 {
            let menu = self.menu(item).await;
            let Some(entry) = menu.find(label) else {
                panic!("the tray menu has {label:?}: {menu:#?}");
            };
            match self.click(item, entry.id).await {
                Ok(()) => return,
                Err(err) => last = Some(err),
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("clicking {label:?} kept failing: {last:?}");
    }
}
