" Vim syntax file for graft rule files (graft-rules(5)); the token classes
" follow grammar/rules_lex.l.  tests/editors_syntax.sh checks one token of
" each class.
if exists('b:current_syntax')
  finish
endif

syntax keyword graftKeyword let op fn include where if else partition dominates
syntax keyword graftConstant True False None
syntax keyword graftType Tensor bool int8 int16 int32 int64 uint8 uint16 uint32 uint64
syntax keyword graftType float16 float32 float64 bfloat16
syntax match graftNumber "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\(f16\|f32\|f64\|f\|[iu]\(8\|16\|32\|64\)\)\=\>"
syntax region graftString start=+"+ skip=+\\.+ end=+"+ oneline
syntax match graftComment "#.*$" contains=@Spell
syntax region graftComment start="/\*" end="\*/" contains=@Spell
" A rule's name: a name in column 1 followed by ':=' or an attribute list.
syntax match graftRuleName "^\h\w*\ze\s*\(:=\|\[\)"
" A call: an op (dotted) name before '('.
syntax match graftOp "\<\h\w*\(\.\h\w*\)*\ze\s*("
" An op class: <elementwise>.
syntax match graftClass "<\h\w*>"
syntax match graftOperator ":=\|=>\|->\|==\|!=\|<=\|>=\|&&\|||\|\.\.\.\|\*\*\|@"

highlight default link graftKeyword Keyword
highlight default link graftConstant Constant
highlight default link graftType Type
highlight default link graftNumber Number
highlight default link graftString String
highlight default link graftComment Comment
highlight default link graftRuleName Function
highlight default link graftOp Identifier
highlight default link graftClass Structure
highlight default link graftOperator Operator

let b:current_syntax = 'graft'
