# The --arg values a foreign kernel's spec gives its scalars, by PTX parameter index: the
# [kernel] abi order when there is one, else the global tensors then the [param.*] tables,
# each in declaration order (docs/spec-format.md, "Foreign kernels"). Prints INDEX=VALUE...
/^\[/ { section = $0; next }
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
  for (i = 1; i <= n; i++) if (order[i] in values) printf "%d=%s ", i - 1, values[order[i]]
  print ""
}
