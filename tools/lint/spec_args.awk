# The --arg values a foreign kernel's spec gives its scalars, by PTX parameter index: the
# [kernel] abi order when there is one, else the global tensors then the [param.*] tables,
# each in declaration order (docs/spec-format.md, "Foreign kernels"). Prints INDEX=VALUE...
# A tensor the abi passes by its map alone ("A.map") gets INDEX=TYPE[SHAPE]:box[BOX] with its
# map's swizzle and NaN fill (docs/lint.md, "Launch, scalars and memory"); TYPE is the spec's
# dtype as written, which --arg takes as a spec does (tile::parse_storage_dtype).
function list_of(line) { sub(/^[^[]*\[/, "", line); sub(/\].*/, "", line); gsub(/[" ]/, "", line); return line }
function string_of(line) { sub(/^[^=]*= */, "", line); sub(/[ \t]*#.*$/, "", line); gsub(/"/, "", line); return line }
/^\[/ { section = $0; next }
section ~ /^\[tensor\.[A-Za-z0-9_]+\]$/ {
  t = section; gsub(/^\[tensor\.|\]$/, "", t)
  if ($0 ~ /^shape *=/) shape[t] = list_of($0)
  if ($0 ~ /^dtype *=/) dtype[t] = string_of($0)
}
section ~ /^\[tensor\.[A-Za-z0-9_]+\.map\]$/ {
  t = section; gsub(/^\[tensor\.|\.map\]$/, "", t)
  if ($0 ~ /^box *=/) box[t] = list_of($0)
  if ($0 ~ /^swizzle *=/) swz[t] = string_of($0)
  if ($0 ~ /^oob_fill *=/) fill[t] = string_of($0)
}
section == "[kernel]" && /^abi *=/ {
  list = $0; sub(/^[^[]*\[/, "", list); sub(/\].*/, "", list); gsub(/[" ]/, "", list)
  n_abi = split(list, abi, ",")
}
section ~ /^\[tensor\./ && /^space *= *"global"/ {
  name = section; gsub(/^\[tensor\.|\]$/, "", name); order[++n] = name
}
section ~ /^\[param\./ && /^value *=/ {
  name = section; gsub(/^\[param\.|\]$/, "", name)
  value = $0; sub(/^value *= */, "", value); sub(/[ \t]*#.*$/, "", value)
  params[++np] = name; values[name] = value
}
END {
  if (n_abi == 0) {
    for (i = 1; i <= np; i++) order[++n] = params[i]
  } else {
    n = n_abi
    for (i = 1; i <= n; i++) order[i] = abi[i]
  }
  for (i = 1; i <= n; i++) {
    if (order[i] in values) printf "%d=%s ", i - 1, values[order[i]]
    if (order[i] ~ /\.map$/) {
      t = order[i]; sub(/\.map$/, "", t)
      printf "%d=%s[%s]:box[%s]", i - 1, dtype[t], shape[t], box[t]
      if (t in swz && swz[t] != "none") printf ":swizzle=%s", swz[t]
      if (fill[t] == "nan") printf ":fill=nan"
      printf " "
    }
  }
  print ""
}
