# where.awk: where the process form's time goes, per message.
#
#   awk -f where.awk [-v form=NAME] W.none W.latency W.msgrate
#
# Each file holds the stderr of one nm_bench run (-q -r 3 -s 8, with
# PVAS_LOG=mpideleg:debug) with -m none, latency and msgrate, in that
# order: the ranks' end-of-run lines "...: CPU U s user, S s system;
# V voluntary and I involuntary ...".  Prints a CSV row per metric,
# "[form,]metric,messages,voluntary,involuntary,cpu_us": the metric's run
# less the run of none, over its messages (1,200 in the 8 B ping-pong,
# 9,750 in the message rate).
BEGIN {
    OFS = ","
    for (i = 1; i < ARGC; i++)
        run[ARGV[i]] = i
}
/(client|delegatee): CPU/ {
    r = run[FILENAME]
    for (i = 2; i <= NF; i++) {
        if ($i == "user," || $i == "system;")
            cpu[r] += $(i - 2)
        if ($i == "voluntary")
            vol[r] += $(i - 1)
        if ($i == "involuntary")
            inv[r] += $(i - 1)
    }
}
END {
    split("latency msgrate", name, " ")
    split("1200 9750", msgs, " ")
    for (j = 1; j <= 2; j++) {
        k = msgs[j]
        row = name[j] OFS k OFS (vol[j + 1] - vol[1]) / k OFS \
            (inv[j + 1] - inv[1]) / k OFS (cpu[j + 1] - cpu[1]) * 1e6 / k
        print (form != "" ? form OFS : "") row
    }
}
