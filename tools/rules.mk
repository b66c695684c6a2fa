# tools/rules.mk — the etcd-fio CLI, linked statically against libfioreport.a.
TOOLS_SRCS   := $(wildcard tools/*.c)
TOOLS_OBJS   := $(patsubst tools/%.c,$(BUILD)/tools/%.o,$(TOOLS_SRCS))
TOOLS_CFLAGS := $(CFLAGS_BASE) -Ilibreport/include -Itools $(JSONC_CFLAGS) \
                -DETCD_FIO_LIBDIR='"$(PREFIX)/lib/etcd-fio"'
ETCD_FIO_BIN := $(BUILD)/etcd-fio

$(BUILD)/tools/%.o: tools/%.c $(wildcard tools/*.h) libreport/include/fioreport.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOLS_CFLAGS) -c $< -o $@

$(ETCD_FIO_BIN): $(TOOLS_OBJS) $(FIOR_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $(TOOLS_OBJS) $(FIOR_A) $(JSONC_LIBS) -lm -lpthread

ALL_TARGETS += $(ETCD_FIO_BIN)
