# ab.awk - the comparison of tests/bench/ab.sh (which says what it prints):
# the BENCH lines of the runs of two builds in, one line a figure out.
# A log's side is its file name: A.<round>.log or B.<round>.log.
#
# The instance a BENCH line is a figure of: its name, its string fields
# (map=, msg=, kind=, at=, transport=, ...) and the numbers that say what
# was run rather than what came of it (players=, clients=, bodies=, ...),
# then #2, #3 ... for a second and third line of the same in one log.
function fmt(v,    a) {
    a = v < 0 ? -v : v
    if (a >= 100) return sprintf("%.0f", v)
    if (a >= 10) return sprintf("%.1f", v)
    return sprintf("%.3f", v) # ratios: 1.135 is not 1.14
}
function median(s, id, k,    n, i, j, t, v) {
    n = count[s, id, k]
    for (i = 1; i <= n; i++) v[i] = val[s, id, k, i] + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[n]
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# A side's figure as printed: the median and, when the runs differ, the range.
function side(s, id, k,    m) {
    if (!((s, id, k) in count)) return s " none"
    m = median(s, id, k)
    return s " " fmt(m) (lo != hi ? " (" fmt(lo) " to " fmt(hi) ")" : "")
}
BEGIN {
    n = split("players clients bodies volumes cells entities tris cpus window age_ms datagram", p, " ")
    for (i = 1; i <= n; i++) param[p[i]] = 1
    # Strings that are figures, not names: a run's figures listed.
    n = split("runs_1 runs_2", p, " ")
    for (i = 1; i <= n; i++) strfig[p[i]] = 1
}
FNR == 1 {
    s = FILENAME
    sub(/.*\//, "", s)
    s = substr(s, 1, 1)
    if (s != "A" && s != "B") { print "ab.awk: " FILENAME " is not an A.N.log or B.N.log" > "/dev/stderr"; bad = 1; exit 2 }
    runs[s]++
    delete seen_here
}
/^BENCH name=/ {
    delete f
    nf = 0
    for (i = 2; i <= NF; i++) {
        eq = index($i, "=")
        if (!eq) continue
        k = substr($i, 1, eq - 1)
        f[k] = substr($i, eq + 1)
        key[++nf] = k
    }
    id = f["name"]
    for (i = 1; i <= nf; i++) {
        k = key[i]
        if (k == "name") continue
        isnum = f[k] ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/
        if (k in param || (!isnum && !(k in strfig))) { id = id " " k "=" f[k]; ident[k] = 1 }
        else ident[k] = 0
    }
    if (++seen_here[id] > 1) id = id " #" seen_here[id]
    if (!(id in known)) { known[id] = 1; order[++ids] = id }
    for (i = 1; i <= nf; i++) {
        k = key[i]
        if (k == "name" || ident[k]) continue
        if (!((id, k) in hasfig)) { hasfig[id, k] = 1; figs[id, ++nfig[id]] = k }
        val[s, id, k, ++count[s, id, k]] = f[k]
    }
}
END {
    if (bad) exit 2
    printf "ab: %d runs of A, %d of B; each figure: the median of its runs, (the range), B/A\n", runs["A"], runs["B"]
    for (i = 1; i <= ids; i++) {
        id = order[i]
        same = 0
        for (j = 1; j <= nfig[id]; j++) {
            k = figs[id, j]
            # A figure no run changed (a count of steps, a flag at 0) says
            # nothing about the builds: counted, not printed.
            ina = ("A", id, k) in count; inb = ("B", id, k) in count
            v0 = ""; differs = 0
            for (t = 1; t <= 2; t++) {
                s = t == 1 ? "A" : "B"
                if (!(t == 1 ? ina : inb)) continue
                for (r = 1; r <= count[s, id, k]; r++) {
                    if (v0 == "") v0 = val[s, id, k, r]
                    else if (val[s, id, k, r] != v0) differs = 1
                }
            }
            if (!differs && ina && inb) { same++; continue }
            line = id " " k ": " side("A", id, k) "; " side("B", id, k)
            if (ina && inb) {
                ma = median("A", id, k); mb = median("B", id, k)
                line = line "; B/A " (ma != 0 ? sprintf("%.3f", mb / ma) : "-")
            }
            print line
        }
        if (same) printf "%s: %d figure%s the same in every run\n", id, same, same == 1 ? "" : "s"
    }
}
