# targets.awk - the judging of tests/bench/targets.sh (which says what it
# prints): BENCH lines in, one TARGET line a target out.
# The instance a BENCH line is a figure of: its name, then its map= and
# cpus= (a level's volumes= and bodies= are facts of the level), or else
# the first of players=, volumes=, cells= and bodies= it has (the others
# follow from that one) and its cpus= and transport=.
function instance(    k, id) {
    id = name
    if ("map" in f)
        id = id " map=" f["map"]
    else
        for (k = 1; k <= nlead; k++)
            if (leads[k] in f) {
                id = id " " leads[k] "=" f[leads[k]]
                break
            }
    if ("cpus" in f) id = id " cpus=" f["cpus"]
    if ("transport" in f) id = id " transport=" f["transport"]
    return id
}
function median(id, field,    n, i, j, t, v) {
    n = count[id, field]
    for (i = 1; i <= n; i++) v[i] = val[id, field, i] + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo[id, field] = v[1]; hi[id, field] = v[n]
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# A figure as printed: the median, and the range when the logs differ.
function show(id, field, fmt,    m, s) {
    m = median(id, field)
    s = sprintf(fmt, m)
    if (count[id, field] > 1 && lo[id, field] != hi[id, field])
        s = s sprintf(" (" fmt " to " fmt ")", lo[id, field], hi[id, field])
    return s
}
function has(id, field) { return (id, field) in count }
# The part of an instance that names it in a verdict: "core.level
# map=oacmpctf2" -> "oacmpctf2", "core.liquids cells=4" -> "cells=4".
function label(id,    s) {
    s = id
    sub(/^[^ ]* /, "", s)
    sub(/^map=/, "", s)
    return s
}
function verdict(what, state, figures) {
    printf "TARGET %s: %s; %s\n", what, state, figures
    if (state == "met") met++
    else if (state == "NOT MET") missed++
    else none++
}
BEGIN {
    nlead = split("players volumes cells bodies", leads, " ")
}
FNR == 1 { logs++ }
/^BENCH name=/ {
    delete f
    for (i = 2; i <= NF; i++) {
        eq = index($i, "=")
        if (eq) f[substr($i, 1, eq - 1)] = substr($i, eq + 1)
    }
    name = f["name"]
    id = instance()
    if (!(id in seen)) { seen[id] = 1; order[++ids] = id }
    for (k in f)
        if (k != "name") val[id, k, ++count[id, k]] = f[k]
}
END {
    # 1. A move on every level: at most 1 us mean and 5 us p99.
    n = 0; nbad = 0; bad = ""
    for (i = 1; i <= ids; i++) {
        id = order[i]
        if (id !~ /^core\.level / || !has(id, "ns_per_move_mean")) continue
        n++
        mean = median(id, "ns_per_move_mean"); p99 = median(id, "ns_per_move_p99")
        if (mean > 1000 || p99 > 5000) {
            bad = bad (bad == "" ? "" : "; ") label(id) " mean " show(id, "ns_per_move_mean", "%.0f") \
                  " p99 " show(id, "ns_per_move_p99", "%.0f")
            nbad++
        }
    }
    what = "core.level: at most 1000 ns mean and 5000 ns p99 a move on every level"
    if (n == 0) verdict(what, "no figure", "no core.level line")
    else if (bad == "") verdict(what, "met", "all " n " levels")
    else verdict(what, "NOT MET", nbad " of " n " levels over: " bad)

    # 2. Near volumes: at most 1.1 times the same move without them.
    n = 0; nbad = 0; bad = ""
    for (i = 1; i <= ids; i++) {
        id = order[i]
        if (id ~ /^core\.level_volumes / && has(id, "same_ratio")) field = "same_ratio"
        else if (id ~ /^core\.(volumes|liquids) / && has(id, "ratio")) field = "ratio"
        else continue
        n++
        if (median(id, field) > 1.1) {
            bad = bad (bad == "" ? "" : "; ") (id ~ /^core\.level_volumes/ ? "" : substr(id, 6, index(id, " ") - 6) " ") \
                  label(id) " " show(id, field, "%.3f")
            nbad++
        }
    }
    what = "core.level_volumes same_ratio, core.volumes and core.liquids ratio: at most 1.1"
    if (n == 0) verdict(what, "no figure", "no line")
    else if (bad == "") verdict(what, "met", "all " n " lines")
    else verdict(what, "NOT MET", nbad " of " n " lines over: " bad)

    # 3. 50 times Bullet (geometric mean over the levels).
    id = "core.vs_bullet_gmean"
    what = "core.vs_bullet_gmean: at least 50 times Bullet"
    if (!has(id, "ratio")) verdict(what, "no figure", "no line (Bullet not installed?)")
    else verdict(what, median(id, "ratio") >= 50 ? "met" : "NOT MET", show(id, "ratio", "%.1f"))

    # 4. A move among 1,024 bodies: at most 1.5 times a lone move.
    id = "core.crowd bodies=1024"
    what = "core.crowd bodies=1024 ratio_to_alone: at most 1.5"
    if (!has(id, "ratio_to_alone")) verdict(what, "no figure", "no line")
    else verdict(what, median(id, "ratio_to_alone") <= 1.5 ? "met" : "NOT MET", show(id, "ratio_to_alone", "%.2f"))

    # 5. UDP moves a server core-second, beside the kernel floor of the same traffic.
    id = "server.udp_cost"
    what = "server.udp_cost moves_per_server_core_s: at least 400000"
    floor = has("server.udp_floor", "datagrams_per_server_core_s") ? \
        "; the kernel alone (server.udp_floor) " show("server.udp_floor", "datagrams_per_server_core_s", "%.0f") : ""
    if (!has(id, "moves_per_server_core_s")) verdict(what, "no figure", "no line")
    else verdict(what, median(id, "moves_per_server_core_s") >= 400000 ? "met" : "NOT MET",
                 show(id, "moves_per_server_core_s", "%.0f") floor)

    # 6. 2,000 UDP players at 60 Hz: p99 under 1 ms in every run (the worst run of each log).
    id = "server.udp_60hz players=2000"
    what = "server.udp_60hz players=2000 p99_us_max: under 1000 (every run)"
    if (!has(id, "p99_us_max")) verdict(what, "no figure", "no line")
    else {
        worst = 0
        for (k = 1; k <= count[id, "p99_us_max"]; k++)
            if (val[id, "p99_us_max", k] + 0 > worst) worst = val[id, "p99_us_max", k] + 0
        verdict(what, worst < 1000 ? "met" : "NOT MET",
                "worst run " sprintf("%.0f", worst) "; p99 " show(id, "p99_us", "%.0f"))
    }

    # 7. Recording: at most 5% of throughput.
    id = "server.record"
    what = "server.record ratio_to_unrecorded: at least 0.95"
    if (!has(id, "ratio_to_unrecorded")) verdict(what, "no figure", "no line")
    else verdict(what, median(id, "ratio_to_unrecorded") >= 0.95 ? "met" : "NOT MET",
                 show(id, "ratio_to_unrecorded", "%.3f"))

    # 8. The replay on one CPU: the core depth at 0.9 (cpu_ratio at most
    # 1.05), the full depth at 0.7, on every map the bench replays.
    n = 0; core_bad = ""; full_bad = ""; figs = ""
    for (i = 1; i <= ids; i++) {
        id = order[i]
        if (id !~ /^replay / || id !~ / cpus=1/ || !has(id, "ratio_to_core")) continue
        n++
        c = median(id, "ratio_to_core"); cr = median(id, "cpu_ratio"); fr = median(id, "full_ratio_to_core")
        m = label(id); sub(/ cpus=1/, "", m)
        figs = figs (figs == "" ? "" : "; ") m " " show(id, "ratio_to_core", "%.3f") " full " \
               show(id, "full_ratio_to_core", "%.3f") \
               (has(id, "ratio_ceiling") ? " (reading alone leaves " show(id, "ratio_ceiling", "%.3f") ")" : "")
        if (c < 0.9 || cr > 1.05) core_bad = core_bad " " m
        if (fr < 0.7) full_bad = full_bad " " m
    }
    what = "replay cpus=1: ratio_to_core at least 0.9 (cpu_ratio at most 1.05), full_ratio_to_core at least 0.7"
    if (n == 0) verdict(what, "no figure", "no replay line with cpus=1")
    else verdict(what, core_bad == "" && full_bad == "" ? "met" : "NOT MET", figs)

    printf "TARGETS: %d met, %d not met, %d without a figure (%d log%s)\n", met, missed, none, logs, logs == 1 ? "" : "s"
}
