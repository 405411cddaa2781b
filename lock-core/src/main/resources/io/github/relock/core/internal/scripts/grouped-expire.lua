-- Grouped multi-lock (spec 2.8): set the lease of a set the owner holds (LockLease.expireIn,
-- releaseAfter; the watchdog renews through lock-renew instead).
-- KEYS[1] group hash N
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- ARGV[3] now, the caller's wall clock in ms
-- ARGV[4..] the values' field names F(v)
-- Returns 1 if set, 0 if the owner does not hold every value.
--@include grouped-extend
local fields = {}
for i = 4, #ARGV do
    fields[#fields + 1] = ARGV[i]
end
return grouped_extend(KEYS[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[1]), fields)
