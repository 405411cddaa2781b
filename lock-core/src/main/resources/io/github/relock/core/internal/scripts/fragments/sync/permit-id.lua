-- permit_bytes(hex): a permit id as the Java API shows it (hex text, 32 characters for the 16
-- bytes Redisson generates) turned into the raw bytes that Redisson stores as the member of the
-- leases zset (sync spec 3.1). relock's driver SPI sends UTF-8 text only, so the conversion happens
-- here. Upper and lower case are both accepted, as Redisson's decoder accepts both.
local function permit_bytes(hex)
    if #hex % 2 == 1 or hex:find('[^%x]') then
        error('relock: a permit id must be hex text, got ' .. hex)
    end
    return (hex:gsub('%x%x', function(pair)
        return string.char(tonumber(pair, 16))
    end))
end
