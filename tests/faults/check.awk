# SPDX-License-Identifier: GPL-2.0-only
#
# check.awk - judges one nemesis schedule from what the client saw and
# captured, and the nemesis's own record of its faults; never from ftd.
#   awk -f check.awk HISTORY...     exit 0: no violation, 1: violations
#
# Input lines (faultclient.c, nemesis.sh), T in monotonic seconds:
#   inv T ID PUT|GET|READ KEY [VALUE]   ok T ID REPLY   fail T ID REPLY
#   unk T ID   rx T HOST REPLY   heal T   unprotected T ...
# Each key is written once, with the value KEY.TAG; READ is a final read,
# made after the last fault healed.  Rules (README, "The nemesis suite"):
#   lost         a write acknowledged (the client's answer, or an OK seen
#                on either host's link) that the final read does not
#                return with its value
#   unexplained  a reply no history of the surviving copy explains: an
#                OK or a value for a key not yet written, a value not the
#                key's, a value the final read does not return, NONE for
#                a key acknowledged before the read was sent, a refused
#                write (ERROR disk) that the survivor holds, or an answer
#                from the copy not live that the live one never gave
#                (after host Y answers a request sent after X's last
#                answer, Y is live; X may then only repeat Y's answers)
#   double live  one request answered from both hosts with different
#                replies, or both before the client sent its next
#                request, the later answer not in a burst (answers to
#                other requests within 5 ms from that host: a copy going
#                live sends its last frames again, FTVMCTL.md)
#   failover     a failover (a host answering requests sent after the
#                other's last answer) while only faults that call for
#                none were on: a busy ftd, a paused or starved ftvm, the
#                client's link or the arbiter cut, etcd restarted, the
#                disk full, ftd paused or the FT link cut for < 250 ms,
#                the ftvm of the host taking over killed
#   stuck        no final read answered within 5 s of the last fault
#                healing, a key whose final read never got an answer, the
#                guest not protected again within 30 s, or protected
#                again only after the nemesis acted as the operator
#                (destroyed a copy left stopped, or ran ft-enable)
# Every violation is printed with its key, time and host; then "figure
# NAME N" lines for the suite's totals.

# Printed up to 10 of each kind; all counted.
function bad(kind, msg) {
    if (++nbad[kind] <= 10)
        printf "VIOLATION %s: %s\n", kind, msg
    total++
}

# The reply's key: "OK k", "NONE k", "VAL k.tag"; "" for other replies.
function key_of(r, a) {
    if (r ~ /^(OK|NONE) /)
        return substr(r, index(r, " ") + 1)
    if (r ~ /^VAL /) {
        split(substr(r, 5), a, ".")
        return a[1]
    }
    return ""
}

# The request a reply at time t answers: the latest one on its key sent
# by then (PUT for OK, a read otherwise); "" if none, "?" if another read
# of that key was sent in the 5 s before it (ambiguous).
function instance(r, k, t, best, bt, prev, i, isput) {
    isput = r ~ /^OK /
    best = ""
    bt = -1
    prev = -1
    for (i = 1; i <= nreq[k]; i++) {
        if (rt[k, i] > t || (rop[k, i] == "PUT") != isput)
            continue
        if (rt[k, i] > bt) {
            prev = bt
            bt = rt[k, i]
            best = rid[k, i]
        } else if (rt[k, i] > prev) {
            prev = rt[k, i]
        }
    }
    if (best != "" && !isput && prev >= 0 && bt - prev < 5)
        return "?"
    return best
}

# A failover at t is called for only by a fault that takes a copy away
# for longer than the heartbeat timeout (300 ms): a host killed or cut
# off, ftd stopped, paused or cut off for 250 ms or more, or the ftvm of
# the host taken over from killed.  One during other faults alone (a
# busy ftd, a paused or starved ftvm, the other host's ftvm killed, the
# client's link, the disk, etcd) fails over a healthy guest.
function failover(t, from, to, k, j, why, hard, n) {
    hard = 0
    n = 0
    why = ""
    for (j = 1; j <= nf; j++) {
        if (t < ft[j] || t > ft[j] + fd[j] + 1)
            continue
        n++
        why = why " " fk[j] " " fd[j] "s"
        if (fk[j] ~ /^(kill|term-ftd|isolate)$/ ||
            (fk[j] == "kill-ftvm" && fh[j] == from) ||
            (fk[j] ~ /^(pause-ftd|cut-ft-out|cut-ft-both)$/ && fd[j] >= 0.25))
            hard = 1
    }
    if (n && !hard)
        bad("failover", sprintf("key %s, t=%s: host %s took over from "\
            "host %s during%s, which calls for no failover", k, t, to,
            from, why))
}

# Reply i came within 5 ms of another reply from its host to another
# request.
function burst(i, j) {
    for (j = i - 1; j >= 1 && xt[i] - xt[j] < 0.005; j--)
        if (xh[j] == xh[i] && xr[j] != xr[i])
            return 1
    for (j = i + 1; j <= n && xt[j] - xt[i] < 0.005; j++)
        if (xh[j] == xh[i] && xr[j] != xr[i])
            return 1
    return 0
}

function rest(from, s, i) {
    s = $from
    for (i = from + 1; i <= NF; i++)
        s = s " " $i
    return s
}

$1 == "inv" {
    op[$3] = $4
    key[$3] = $5
    sent[$3] = $2
    nreq[$5]++
    rt[$5, nreq[$5]] = $2
    rop[$5, nreq[$5]] = $4
    rid[$5, nreq[$5]] = $3
    if ($4 == "PUT") {
        val[$5] = $6
        put_t[$5] = $2
    }
    if ($4 == "READ" && first_read == "")
        first_read = $2
    next
}
$1 == "ok" || $1 == "fail" {
    r = rest(4)
    k = key[$3]
    if (op[$3] == "PUT" && $1 == "ok" && !(k in acked)) {
        acked[k] = $2
        acked_by[k] = "the client"
    }
    if (op[$3] == "PUT" && $1 == "fail")
        refused[k] = r
    if (op[$3] == "READ") {
        final[k] = r
        if (first_answer == "")
            first_answer = $2
    }
    next
}
$1 == "rx" {
    n++
    xt[n] = $2
    xh[n] = $3
    xr[n] = rest(4)
    k = key_of(xr[n])
    if (xr[n] ~ /^OK / && (!(k in acked) || $2 < acked[k])) {
        acked[k] = $2
        acked_by[k] = "host " $3
    }
    next
}
$1 == "heal" { last_heal = $2; next }
$1 == "fault" {
    nf++
    ft[nf] = $2
    fk[nf] = $3
    fh[nf] = $4
    fd[nf] = $5
    next
}
$1 == "operator" {
    bad("stuck", sprintf("t=%s, host %s: protection came back only by "\
        "the operator's hand: %s", $2, $3, rest(4)))
    next
}
$1 == "unprotected" {
    bad("stuck", sprintf("t=%s: the guest was not protected again within "\
        "30 s of the fault healing (%s)", $2, rest(3)))
    next
}

END {
    for (k in val) {
        if (k in acked && !(k in final))
            bad("stuck", sprintf("key %s: acknowledged at t=%s by %s, its "\
                "final read got no answer", k, acked[k], acked_by[k]))
        else if (k in acked && final[k] != "VAL " val[k])
            bad("lost", sprintf("key %s: acknowledged at t=%s by %s, the "\
                "final read says '%s'", k, acked[k], acked_by[k], final[k]))
        if (k in refused && final[k] == "VAL " val[k])
            bad("unexplained", sprintf("key %s: its write was refused "\
                "('%s') yet the survivor holds it", k, refused[k]))
    }
    if (first_read != "" && last_heal != "" &&
        (first_answer == "" || first_answer - last_heal > 5))
        bad("stuck", sprintf("t=%s: no copy answered within 5 s of the "\
            "last fault healing (first answer: %s)", last_heal,
            first_answer == "" ? "none" : "t=" first_answer))

    for (i = 1; i <= n; i++) {
        r = xr[i]
        k = key_of(r)
        if (k == "")
            continue
        id = instance(r, k, xt[i])
        where = sprintf("key %s, t=%s, host %s", k, xt[i], xh[i])
        if (r ~ /^OK / && id == "") {
            bad("unexplained", where ": OK for a key not written")
            continue
        }
        if (r ~ /^VAL / && (!(k in val) || "VAL " val[k] != r ||
                            put_t[k] > xt[i])) {
            bad("unexplained", where ": '" r "', a value never written")
            continue
        }
        if (r ~ /^VAL / && (k in final) && final[k] != r) {
            bad("unexplained", where ": '" r "', a value the surviving "\
                "copy does not hold (final read: '" final[k] "')")
            continue
        }
        if (r ~ /^NONE / && id != "" && id != "?" && (k in acked) &&
            acked[k] < sent[id] && op[id] != "READ") {
            bad("unexplained", where ": NONE, yet acknowledged at t=" \
                acked[k] " by " acked_by[k] ", before the read was sent")
            continue
        }
        if (id == "" || id == "?")
            continue
        # One request, answers from both hosts: both copies took it as
        # their input if both answered before the client sent its next
        # request, unless the later answer came in a burst of answers to
        # other requests: a copy going live sends its last frames again
        # (tools/libxlft/FTVMCTL.md), duplicates of what its log held.
        if ((id, "h") in ans && ans[id, "h"] != xh[i] && !(id in dup)) {
            if (ans[id, "r"] != r) {
                dup[id] = 1
                bad("doublelive", where ": '" r "', while host " \
                    ans[id, "h"] " answered the same request '" \
                    ans[id, "r"] "'")
            } else if ((!((id + 1) in sent) || xt[i] < sent[id + 1]) &&
                       !burst(i)) {
                dup[id] = 1
                bad("doublelive", sprintf("%s: both hosts answered the "\
                    "request sent at t=%s before the next was sent (host "\
                    "%s at t=%s)", where, sent[id], ans[id, "h"],
                    ans[id, "t"]))
            }
        } else if (!((id, "h") in ans)) {
            ans[id, "h"] = xh[i]
            ans[id, "r"] = r
            ans[id, "t"] = xt[i]
        }
        # A failover: a host answers a request sent after the last answer
        # of the host that answered so far.
        if (cur == "")
            cur = xh[i]
        if (xh[i] != cur && sent[id] > last_t[cur]) {
            failover(xt[i], cur, xh[i], k)
            cur = xh[i]
        }
        last_t[xh[i]] = xt[i]
        answered[id, xh[i]] = 1
        # An answer from the copy that is not live: only a duplicate of
        # one the live copy gave (or sent again going live) is explained.
        if (xh[i] != cur) {
            nst++
            st_i[nst] = i
            st_id[nst] = id
            st_live[nst] = cur
        }
        for (j = 1; j <= nd; j++)
            if (xh[i] == dup_first[j] && sent[id] > dup_t[j] &&
                !(j in ran_on)) {
                ran_on[j] = 1
                bad("doublelive", sprintf("key %s, t=%s: both hosts "\
                    "answered request %s; host %s, which answered first, "\
                    "answers key %s at t=%s (host %s), sent after the "\
                    "other host's answer", dup_k[j], dup_t[j], dup_id[j],
                    dup_first[j], k, xt[i], xh[i]))
            }
    }

    for (j = 1; j <= nst; j++) {
        i = st_i[j]
        if (!((st_id[j], st_live[j]) in answered))
            bad("unexplained", sprintf("key %s, t=%s, host %s: '%s' "\
                "(the request sent at t=%s), sent while host %s was live, "\
                "which never gave that answer: not in the live copy's log",
                key_of(xr[i]), xt[i], xh[i], xr[i], sent[st_id[j]],
                st_live[j]))
    }

    for (kind in nbad)
        if (nbad[kind] > 10)
            printf "VIOLATION %s: %d more not shown\n", kind, nbad[kind] - 10
    printf "checked: %d requests, %d replies captured, %d keys written, "\
        "%d acknowledged, %d read back\n", length(op), n, length(val),
        length(acked), length(final)
    printf "figure lost %d\nfigure unexplained %d\nfigure doublelive %d\n"\
        "figure stuck %d\nfigure failover %d\n", nbad["lost"],
        nbad["unexplained"], nbad["doublelive"], (nbad["stuck"] > 0),
        nbad["failover"]
    exit (total > 0)
}
