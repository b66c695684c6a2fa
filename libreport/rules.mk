# libreport/rules.mk — libfioreport: every libreport/*.c goes into build/libfioreport.{so,a}.
FIOR_SOVER   := 1
FIOR_SRCS    := $(wildcard libreport/*.c)
FIOR_OBJS    := $(patsubst libreport/%.c,$(BUILD)/libreport/%.o,$(FIOR_SRCS))
FIOR_CFLAGS  := $(CFLAGS_BASE) -Ilibreport/include -Ilibreport $(JSONC_CFLAGS)
FIOR_SO      := $(BUILD)/libfioreport.so
FIOR_A       := $(BUILD)/libfioreport.a

$(BUILD)/libreport/%.o: libreport/%.c $(wildcard libreport/*.h) libreport/include/fioreport.h | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FIOR_CFLAGS) -c $< -o $@

$(FIOR_SO).$(FIOR_SOVER): $(FIOR_OBJS)
	$(CC) -shared -Wl,-soname,libfioreport.so.$(FIOR_SOVER) $(LDFLAGS_BASE) -o $@ $^ $(JSONC_LIBS) -lm
$(FIOR_SO): $(FIOR_SO).$(FIOR_SOVER)
	ln -sf libfioreport.so.$(FIOR_SOVER) $@
$(FIOR_A): $(FIOR_OBJS)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(FIOR_SO) $(FIOR_A)
