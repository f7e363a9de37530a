# cmake -DINPUT=FILE -DOUTPUT=FILE.cpp -DSYMBOL=NAME -P embed_text.cmake
# Writes FILE.cpp defining `extern const char NAME[]` with FILE's text (a raw
# string literal; the text must not contain the delimiter `)ptxgen_embed"`).
file(READ "${INPUT}" _text)
string(FIND "${_text}" ")ptxgen_embed\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${INPUT} by tools/bench/embed_text.cmake: do not edit.\n"
     "extern const char ${SYMBOL}[];\n"
     "const char ${SYMBOL}[] = R\"ptxgen_embed(${_text})ptxgen_embed\";\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
