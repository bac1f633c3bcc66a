//! Damage to the machine itself (issue 41, section 2): fork bombs and other exhaustion, writes
//! to block devices and filesystems, recursive permission or ownership changes at the root,
//! every process signalled. All blocked. The everyday commands beside them keep their answers.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{Decision, Policy};

use Decision::{Ask, Auto, Block};

const RULE: &str = "block.destructive";

#[test]
fn exhausting_the_machine_is_blocked() {
    let blocked = |name, line: &str, why| row(name, shell(line), Block, RULE, why);
    check(
        vec![
            blocked(
                "the classic fork bomb",
                ":(){ :|:& };:",
                "a function piping into a copy of itself in the background",
            ),
            blocked(
                "a named fork bomb",
                "bomb() { bomb | bomb & }; bomb",
                "the name does not matter",
            ),
            blocked(
                "function keyword",
                "function f { f & f; }; f",
                "a copy in the background, then another",
            ),
            blocked(
                "quoted and escaped names",
                "bomb(){ 'bomb'|\\bomb & };bomb",
                "quoting changes no name the shell runs",
            ),
            blocked(
                "under eval",
                "eval \":(){ :|:& };:\"",
                "eval runs the string",
            ),
            blocked(
                "echoed into a shell",
                "echo ':(){ :|:& };:' | bash",
                "a shell reading its script from the pipe runs the quoted text",
            ),
            blocked(
                "under bash -c",
                "bash -c ':(){ :|:& };:'",
                "inside a shell's script",
            ),
            blocked(
                "a loop that spawns",
                "while true; do sleep 100 & done",
                "a background process on every turn, forever",
            ),
            blocked(
                "until false",
                "until false; do yes > /dev/null & done",
                "the other endless loop",
            ),
            blocked(
                "perl forks forever",
                "perl -e 'fork while fork'",
                "inline code that forks forever",
            ),
            blocked(
                "python forks forever",
                "python3 -c 'import os\nwhile True: os.fork()'",
                "the same in Python",
            ),
            blocked(
                "yes into a file",
                "yes > fill.txt",
                "an endless writer fills the disk",
            ),
            blocked(
                "zeros into a file",
                "cat /dev/zero > big.img",
                "the same with cat",
            ),
            blocked(
                "yes piped into tee",
                "yes | tee fill.txt",
                "the writer at the other end of the pipe fills the disk",
            ),
            blocked(
                "dd without a count",
                "dd if=/dev/zero of=fill.bin bs=1M",
                "dd stops only when the disk is full",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn writing_to_disks_and_filesystems_is_blocked() {
    let blocked = |name, line: &str, why| row(name, shell(line), Block, RULE, why);
    check(
        vec![
            blocked(
                "dd onto a disk",
                "dd if=image.iso of=/dev/sdb bs=4M",
                "overwrites the disk",
            ),
            blocked(
                "a redirect onto a disk",
                "cat image.iso > /dev/sdb",
                "the shell writes the disk",
            ),
            blocked(
                "cp onto a disk",
                "cp image.iso /dev/sdb",
                "cp writes the device",
            ),
            blocked(
                "tee onto an NVMe disk",
                "tee /dev/nvme0n1 < image.iso",
                "tee writes the device",
            ),
            blocked("mkfs.ext4", "mkfs.ext4 /dev/sdb1", "formats a partition"),
            blocked("mkfs -t", "mkfs -t xfs /dev/sdc", "the generic front end"),
            blocked(
                "wipefs -a",
                "sudo wipefs -a /dev/sda",
                "erases every signature",
            ),
            blocked(
                "parted -l beside a command",
                "parted -l /dev/sda mklabel gpt",
                "a listing flag does not make a new label harmless",
            ),
            blocked(
                "sgdisk --zap-all",
                "sgdisk --zap-all /dev/sda",
                "destroys the partition tables",
            ),
            blocked(
                "zpool destroy",
                "zpool destroy tank",
                "a ZFS pool and its data",
            ),
            blocked("lvremove", "sudo lvremove -f vg0/data", "a logical volume"),
            blocked(
                "cryptsetup luksFormat",
                "cryptsetup luksFormat /dev/sdb",
                "encrypts over the data",
            ),
            blocked("sysrq", "echo b > /proc/sysrq-trigger", "reboots at once"),
            blocked(
                "systemctl reboot",
                "systemctl reboot",
                "the machine stops, as with reboot",
            ),
            blocked("init 0", "sudo init 0", "runlevel 0 powers off"),
            blocked(
                "every process",
                "kill -9 -1",
                "pid -1 is every process the user may signal",
            ),
            blocked(
                "every process, -s",
                "kill -s KILL -1",
                "the signal given by name",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn recursive_permission_changes_at_the_root_are_blocked() {
    let blocked = |name, line: &str, why| row(name, shell(line), Block, RULE, why);
    check(
        vec![
            blocked(
                "chmod -R 777 /",
                "chmod -R 777 /",
                "every file on the machine",
            ),
            blocked("chmod -Rv", "chmod -Rv 000 /", "-R in a cluster"),
            blocked(
                "chmod --recursive /etc",
                "chmod --recursive 000 /etc",
                "the long form, a system directory",
            ),
            blocked(
                "chown -R at the root",
                "sudo chown -R nobody:nogroup /",
                "ownership of everything",
            ),
            blocked("chgrp -R home", "chgrp -R users ~", "a home directory"),
            blocked(
                "setfacl -R",
                "setfacl -R -m u:nobody:rwx /",
                "ACLs recursively on the root",
            ),
            blocked("chattr -R", "chattr -R +i /usr", "immutable system files"),
        ],
        &Policy::default(),
    );
}

#[test]
fn everyday_commands_beside_them_keep_their_answers() {
    check(
        vec![
            row(
                "yes piped to head",
                shell("yes | head -n 3"),
                Auto,
                "auto.read",
                "yes ends with the pipe's reader",
            ),
            row(
                "a fork bomb's text printed",
                shell("echo ':(){ :|:& };:'"),
                Auto,
                "auto.read",
                "quoted text no shell runs is only text",
            ),
            row(
                "a commit message about fork bombs",
                shell("git commit -m 'block :(){ :|:& };: and while true; do x & done'"),
                Auto,
                "auto.git_local",
                "a message is no code: the commit is local work",
            ),
            row(
                "yes bounded before tee",
                shell("yes | head -n 2 | tee answers.txt"),
                Auto,
                "auto.read",
                "head ends the stream before it reaches the file",
            ),
            row(
                "bytes from urandom",
                shell("head -c 1024 /dev/urandom > sample.bin"),
                Auto,
                "auto.read",
                "a bounded read into the repository",
            ),
            row(
                "fdisk -l",
                shell("fdisk -l"),
                Auto,
                "auto.read",
                "lists partitions",
            ),
            row(
                "parted -l",
                shell("parted -l"),
                Auto,
                "auto.read",
                "the same with parted",
            ),
            row(
                "wipefs without -a",
                shell("wipefs /dev/sda"),
                Auto,
                "auto.read",
                "without -a wipefs only lists signatures",
            ),
            row(
                "sfdisk --dump",
                shell("sfdisk --dump /dev/sda"),
                Auto,
                "auto.read",
                "prints the partition table",
            ),
            row(
                "chmod -R in the repo",
                shell("chmod -R u+w build"),
                Auto,
                "auto.edit",
                "a repository directory",
            ),
            row(
                "chmod a script",
                shell("chmod 755 scripts/deploy.sh"),
                Auto,
                "auto.edit",
                "one file in the repository",
            ),
            row(
                "a bounded dd",
                shell("dd if=/dev/zero of=disk.img bs=1M count=64"),
                Ask,
                "ask.unknown",
                "count= bounds it: no exhaustion, dd asked as any program the policy does not know",
            ),
            row(
                "kill -1 PID",
                shell("kill -1 1234"),
                Ask,
                "ask.unknown",
                "-1 first is SIGHUP to one process, not every process",
            ),
            row(
                "a loop without a background job",
                shell("while true; do git status && break; done"),
                Auto,
                "auto.read",
                "`&&` is no background job: the loop waits for each turn",
            ),
        ],
        &Policy::default(),
    );
}
