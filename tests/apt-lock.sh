# apt-lock.sh - sourced by install-deps.sh and install-corpus.sh before they
# run apt-get as root, so that sweep's own callers take turns.
#
# They do come together: `make -j2 test` checks the packages of build/ and of
# the build-faults/ sweepd it makes beside itself at once, and two corpus
# tests ask for the corpus at once. A second apt-get dies at once on the
# locks of the first ("Could not get lock /var/lib/dpkg/lock-frontend"; and
# `apt-get update` on the package lists' lock, which apt's own
# DPkg::Lock::Timeout does not cover). So the callers hold one lock file
# with flock(1) for the rest of their run, and the second, once it has it,
# looks again at what is still missing; and apt-get itself waits up to 10
# minutes for dpkg's lock, which anything else on the machine may hold.
#
# SWEEP_APT_LOCK names another lock file. Without flock(1), or with a lock
# file that cannot be opened, only apt's own wait is left.

SWEEP_APT_LOCK=${SWEEP_APT_LOCK:-$([ -d /var/lock ] && echo /var/lock || echo /tmp)/sweep-apt.lock}
# apt-get waiting for dpkg's lock, without the lock's descriptor, so that
# nothing apt starts (a service a package brings) holds it after we end.
apt_get() {
    apt-get -o DPkg::Lock::Timeout=600 "$@" 9>&-
}

# apt_take_turn WHO: waits (at most 15 minutes) until no other caller is
# installing, and keeps the lock, on descriptor 9, until the script ends.
apt_take_turn() {
    command -v flock >/dev/null 2>&1 || return 0
    # A redirection that fails on exec would end the script: try it first.
    (: >>"$SWEEP_APT_LOCK") 2>/dev/null || return 0
    exec 9>>"$SWEEP_APT_LOCK"
    if ! flock -n 9; then
        echo "$1: waiting for another sweep install (lock $SWEEP_APT_LOCK)" >&2
        flock -w 900 9 || echo "$1: waited 15 minutes for $SWEEP_APT_LOCK; going on" >&2
    fi
}
