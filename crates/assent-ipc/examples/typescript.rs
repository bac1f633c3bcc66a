//! Prints `ui/src/ipc.gen.ts`, the page's side of the IPC types (`cd ui && npm run gen`).
fn main() {
    print!("{}", assent_ipc::typescript::typescript());
}
