# SPDX-License-Identifier: BSD-2-Clause
# median.awk: med(s), the median of the numbers in the space-separated
# string s (the mean of the middle two for an even count).  The bench
# scripts put this text in front of their own awk programs.
function med(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
